// Small progressive enhancements: confirm dangerous forms, "select all" in the message list.
document.addEventListener("submit", function (e) {
  var form = e.target;
  var text = form.getAttribute && form.getAttribute("data-confirm");
  if (text && !window.confirm(text)) { e.preventDefault(); }
});
document.addEventListener("change", function (e) {
  if (e.target && e.target.id === "pick-all") {
    document.querySelectorAll("input[name=ids]").forEach(function (c) { c.checked = e.target.checked; });
  }
});

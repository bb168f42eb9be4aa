// Small progressive enhancements: confirm dangerous forms, "select all" in the message list,
// the folding navigation on phones (without script the menu simply stays open).
document.documentElement.classList.add("js");
document.addEventListener("click", function (e) {
  var more = e.target && e.target.closest && e.target.closest(".filters-toggle");
  if (more) {
    var shown = more.form.classList.toggle("open");
    more.setAttribute("aria-expanded", shown ? "true" : "false");
    return;
  }
  var toggle = e.target && e.target.closest && e.target.closest(".menu-toggle");
  if (!toggle) { return; }
  var open = toggle.getAttribute("aria-expanded") !== "true";
  toggle.setAttribute("aria-expanded", open ? "true" : "false");
  document.querySelector(".topbar").classList.toggle("open", open);
});
document.addEventListener("submit", function (e) {
  var form = e.target;
  // a form asks before it does something that cannot be undone; so does one of its buttons
  var button = e.submitter;
  var text = (button && button.getAttribute("data-confirm")) ||
    (form.getAttribute && form.getAttribute("data-confirm"));
  if (text && !window.confirm(text)) { e.preventDefault(); return; }
  // a new account takes the browser's time zone (digest and quiet hours are local times)
  var zone = form.querySelector && form.querySelector("input[data-browser-zone]");
  if (zone && window.Intl) {
    try { zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (err) { zone.value = ""; }
  }
});
document.addEventListener("change", function (e) {
  if (e.target && e.target.id === "pick-all") {
    document.querySelectorAll("input[name=ids]").forEach(function (c) { c.checked = e.target.checked; });
  }
});

// The password-reset link carries its token in the fragment (#token=…), which browsers never
// send to the server: copy it into the form and drop it from the address bar and history.
// Then ask the server whether the link still works (the token in a POST body, never in an
// address): a link that is invalid, expired or used says so at once, before the reader
// types a new password for nothing.
(function () {
  var field = document.getElementById("reset-token");
  var form = document.getElementById("reset-form");
  if (!field || !form) return;
  if (!field.value) {
    var found = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
    if (found) {
      field.value = decodeURIComponent(found[1].replace(/\+/g, " "));
      window.history.replaceState(null, "", window.location.pathname);
    }
  }
  function gone() {
    var heading = document.querySelector("main h1");
    if (heading && heading.getAttribute("data-invalid")) {
      heading.textContent = heading.getAttribute("data-invalid");
    }
    form.hidden = true;
    document.getElementById("reset-invalid").hidden = false;
  }
  if (!field.value) { gone(); return; }
  if (!window.fetch || !form.getAttribute("data-check")) return;
  var body = new URLSearchParams();
  body.set("csrf_token", form.querySelector("input[name=csrf_token]").value);
  body.set("token", field.value);
  fetch(form.getAttribute("data-check"), { method: "POST", body: body, credentials: "same-origin" })
    .then(function (r) { return r.ok ? r.json() : null; })
    .then(function (answer) { if (answer && answer.valid === false) { gone(); } })
    .catch(function () {});
})();

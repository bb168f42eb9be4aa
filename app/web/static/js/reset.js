// The password-reset link carries its token in the fragment (#token=…), which browsers never
// send to the server: copy it into the form and drop it from the address bar and history.
(function () {
  var field = document.getElementById("reset-token");
  if (!field || field.value) return;
  var found = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (!found) return;
  field.value = decodeURIComponent(found[1].replace(/\+/g, " "));
  window.history.replaceState(null, "", window.location.pathname);
})();

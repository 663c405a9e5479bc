/* Installs the service worker (static/js/sw.js, served at /sw.js) where browsers allow it:
   it keeps a player's sheet readable offline. Its scope is the sheet itself, so no other
   page (the DJ's board, refreshing twenty times a minute) sends its requests through it. */
(function () {
  "use strict";
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  if (document.getElementById("sheet")) {
    navigator.serviceWorker.register("/sw.js", { scope: window.location.pathname }).catch(function () {
      /* no offline copy on this browser; the app works the same online */
    });
    return;
  }
  // A worker for the whole site, as an earlier version installed it: no longer wanted.
  navigator.serviceWorker.getRegistration("/").then(function (registration) {
    if (registration && new URL(registration.scope).pathname === "/") registration.unregister();
  }).catch(function () { /* nothing to tidy */ });
})();

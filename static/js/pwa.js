/* Installs the service worker (static/js/sw.js, served at /sw.js) where browsers allow it:
   it keeps a player's sheet readable offline. */
(function () {
  "use strict";
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {
    /* no offline copy on this browser; the app works the same online */
  });
})();

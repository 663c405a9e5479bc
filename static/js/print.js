/* "Print" links on the printable pages (no inline handlers: the CSP forbids them). */
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var link = event.target.closest("[data-print]");
    if (!link) return;
    event.preventDefault();
    window.print();
  });
})();

/* The DJ's board: live refreshes of cards, keyboard shortcuts, the help overlay,
   closing the second-tap forms and toasts. Loaded with `defer`; no inline handlers
   (the CSP forbids them). */
(function () {
  "use strict";
  var board = document.getElementById("board");
  if (!board || !window.htmx) return;
  var slug = board.dataset.slug;

  // -- live: another page changed something; fetch our own rendering of it -----------
  function refreshCard(card) {
    if (card.querySelector(".ask-slot > *")) {
      card.dataset.stale = "1"; // a second-tap form is open: refresh when it closes
      return;
    }
    htmx.trigger(card, "zodiac-refresh");
  }
  function refreshPanels() {
    htmx.ajax("GET", "/c/" + slug + "/paneles/", { swap: "none" });
  }
  document.addEventListener("zodiac:change", function (event) {
    var detail = event.detail || {};
    var cards = detail.all
      ? board.querySelectorAll("article.pj-card")
      : (detail.pj || []).map(function (id) { return document.getElementById("pj-" + id); });
    var missing = false;
    Array.prototype.forEach.call(cards, function (card) {
      if (card) refreshCard(card); else missing = true;
    });
    // A PJ added, archived or restored elsewhere: the list of cards itself changed.
    if (missing) htmx.ajax("GET", window.location.pathname, { select: "#cards", target: "#cards", swap: "outerHTML" });
    refreshPanels();
  });

  // A refresh of the clock bar must not throw away time the DJ is typing in "Other time…".
  document.body.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "clockbar" && target.querySelector("details.menu[open]")) {
      event.detail.shouldSwap = false;
    }
  });

  // Keep "More actions" open and the focus in a card across its swap.
  var kept = null;
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.classList || !target.classList.contains("pj-card")) return;
    kept = {
      id: target.id,
      open: !!target.querySelector("details.more[open]"),
      focus: target.contains(document.activeElement),
    };
  });
  document.body.addEventListener("htmx:afterSwap", function () {
    if (!kept) return;
    var card = document.getElementById(kept.id);
    if (card) {
      var more = card.querySelector("details.more");
      if (more && kept.open) more.open = true;
      if (kept.focus) card.focus({ preventScroll: true });
    }
    kept = null;
  });

  // -- clicks ----------------------------------------------------------------------
  board.addEventListener("click", function (event) {
    var el = event.target.closest("[data-close-ask], [data-dismiss], [data-help]");
    if (!el) return;
    if (el.hasAttribute("data-close-ask")) {
      var slot = el.closest(".ask-slot");
      var card = el.closest("article.pj-card");
      if (slot) slot.innerHTML = "";
      if (card && card.dataset.stale) { delete card.dataset.stale; htmx.trigger(card, "zodiac-refresh"); }
    } else if (el.hasAttribute("data-dismiss")) {
      var toast = el.closest("[data-toast]");
      if (toast) toast.remove();
    } else {
      openHelp();
    }
  });

  var help = document.getElementById("help");
  function openHelp() { if (help && !help.open) help.showModal(); }

  // -- keyboard shortcuts (desktop) ---------------------------------------------------
  var TYPES = { h: "heridas", f: "fatiga", s: "shock", e: "emocion", a: "afeccion" };
  var GRADES = { "1": "leve", "2": "grave", "3": "persistente" };
  var pendingType = null;

  function cards() { return Array.prototype.slice.call(board.querySelectorAll("article.pj-card")); }
  function current() {
    var active = document.activeElement;
    return active && active.closest ? active.closest("article.pj-card") : null;
  }
  function choose(card) {
    if (!card) return;
    card.focus();
    card.scrollIntoView({ block: "nearest" });
  }
  function click(selector, scope) {
    var el = (scope || board).querySelector(selector);
    if (el && !el.disabled) el.click();
    return !!el;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    if (help && help.open) return; // the dialog handles Esc itself
    var key = event.key;
    var card = current();
    if (pendingType && GRADES[key]) {
      event.preventDefault();
      if (card) {
        click('[data-shortcut-type="' + pendingType + '"][data-shortcut-grade="' + GRADES[key] + '"]', card);
      }
      pendingType = null;
      return;
    }
    pendingType = null;
    var list = cards();
    if (/^[1-9]$/.test(key)) { event.preventDefault(); choose(list[Number(key) - 1]); return; }
    if (key === "j" || key === "k") {
      event.preventDefault();
      var index = list.indexOf(card);
      var next = key === "j" ? index + 1 : index - 1;
      if (index < 0) next = 0;
      choose(list[Math.max(0, Math.min(list.length - 1, next))]);
      return;
    }
    if (TYPES[key]) { if (card) { event.preventDefault(); pendingType = TYPES[key]; } return; }
    if (key === "t" && card) { event.preventDefault(); click("[data-turn-end]", card); return; }
    if (key === "r" && card) { event.preventDefault(); click("[data-roll]", card); return; }
    if (key === "n") { event.preventDefault(); click('[data-shortcut="n"]'); return; }
    if (key === "u") { event.preventDefault(); click('[data-shortcut="u"]'); return; }
    if (key === "?") { event.preventDefault(); openHelp(); }
  });
})();

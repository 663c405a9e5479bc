/* The DJ's board: live refreshes of cards, keyboard shortcuts, the help overlay,
   closing the second-tap forms and toasts. Loaded with `defer`; no inline handlers
   (the CSP forbids them). */
(function () {
  "use strict";
  var board = document.getElementById("board");
  if (!board || !window.htmx) return;

  // -- live: another page changed something; show our rendering of it -----------------
  // live.js leaves out the news this page's own answers already showed.
  document.addEventListener("zodiac:change", function (event) {
    refresh(event.detail || {});
  });

  // The stream usually carries the board's rendering of the change: the cards it names
  // (every card, for a change of all) and the panels.
  function refresh(detail) {
    var missing = !detail.all && (detail.pj || []).some(function (id) { return !document.getElementById("pj-" + id); });
    var names = detail.all
      ? Object.keys(detail.parts || {}).filter(function (name) { return name.indexOf("card:") === 0; })
      : (detail.pj || []).map(function (id) { return "card:" + id; });
    var html = zodiacLive.given(detail, names.concat(["panels"]));
    if (html !== null) {
      swapParts(html);
    } else {
      zodiacLive.fetchParts(board.dataset.refresh, detail).then(function (answer) {
        if (answer) swapParts(answer.html);
      }).catch(function () { /* the stream says when the server is away */ });
    }
    // A session started or ended elsewhere: the session bar (its forms post as plain
    // forms, with this page's token) comes from this page's own rendering.
    if ((detail.kinds || []).indexOf("session") !== -1) {
      htmx.ajax("GET", window.location.pathname, { select: ".session-bar", target: ".session-bar", swap: "outerHTML" });
    }
    // A PJ added, archived or restored elsewhere: the list of cards itself changed.
    if (missing) {
      htmx.ajax("GET", window.location.pathname, { select: "#cards", target: "#cards", swap: "outerHTML" });
    }
  }

  // A live refresh is a few parts, each with the id of what it replaces: change them in
  // place (live.js), then let htmx wire up what is new.
  function swapParts(html) {
    zodiacLive.parts(html).forEach(function (pair) {
      var old = pair[0], part = pair[1];
      if (part.getAttribute("hx-swap-oob") === "delete") { old.remove(); return; }
      part.removeAttribute("hx-swap-oob");
      if (old.isEqualNode(part)) return; // unchanged (the clock, often): nothing to redo
      var isCard = old.classList.contains("pj-card");
      if (isCard && old.querySelector(".ask-slot > *")) { old.dataset.stale = "1"; return; }
      // "More actions" open with its forms loaded: that card is replaced (the forms are
      // asked again), keeping it open and the focus in it.
      if (isCard && old.querySelector("details.more[open]")) {
        beforeCardSwap(old);
        old.replaceWith(part);
        htmx.process(part);
        afterCardSwap(part);
        return;
      }
      zodiacLive.patch(old, part);
      htmx.process(old);
    });
  }

  // A card with a second-tap form open is not replaced under the DJ's finger: it is
  // refreshed when that form closes. Otherwise "More actions" stays open and the focus
  // stays in the card across the swap.
  var kept = {};
  function beforeCardSwap(card) {
    kept[card.id] = {
      open: !!card.querySelector("details.more[open]"),
      focus: card.contains(document.activeElement),
    };
  }
  function afterCardSwap(card) {
    var was = kept[card.id];
    delete kept[card.id];
    if (!was) return;
    var more = card.querySelector("details.more");
    if (more && was.open) more.open = true;
    if (was.focus) card.focus({ preventScroll: true });
  }
  document.body.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail.target;
    if (!target) return;
    if (target.id === "clockbar" && target.querySelector("details.menu[open]")) {
      event.detail.shouldSwap = false; // time the DJ is typing in "Other time…"
    } else if (target.classList && target.classList.contains("pj-card")) {
      if (target.querySelector(".ask-slot > *")) {
        event.detail.shouldSwap = false;
        target.dataset.stale = "1";
      } else {
        beforeCardSwap(target);
      }
    }
  });
  document.body.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id && target.id.indexOf("pj-") === 0) {
      var card = document.getElementById(target.id);
      if (card) afterCardSwap(card);
    }
  });
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.classList && target.classList.contains("pj-card")) beforeCardSwap(target);
  });
  document.body.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    var card = target && target.id ? document.getElementById(target.id) : null;
    if (card && card.classList.contains("pj-card")) afterCardSwap(card);
  });

  // -- a tap that failed: said on its card (live.js says so for one left unanswered) -----
  document.body.addEventListener("htmx:sendError", function (event) {
    if (isPost(event)) zodiacLive.tell(event.detail.elt, board.dataset.sendError);
  });
  document.body.addEventListener("htmx:responseError", function (event) {
    if (isPost(event)) zodiacLive.tell(event.detail.elt, board.dataset.serverError);
  });
  function isPost(event) {
    return ((event.detail.requestConfig || {}).verb || "").toLowerCase() === "post";
  }

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

/* The DJ's board: live refreshes of cards, keyboard shortcuts, the help overlay,
   closing the second-tap forms and toasts. An ES module (deferred); it starts the live
   channel by importing it. No inline handlers (the CSP forbids them). */
import { fetchParts, given, parts, patch, tell } from "./live/index.js";

(() => {
  const board = document.getElementById("board");
  if (!board || !window.htmx) return;

  // -- live: another page changed something; show our rendering of it -----------------
  // live/ leaves out the news this page's own answers already showed.
  document.addEventListener("zodiac:change", (event) => {
    // A flash said its piece when the page opened ("Empieza el combate…"); news ends it.
    document.querySelectorAll("main > .messages").forEach((messages) => { messages.remove(); });
    refresh(event.detail || {});
    // A flash said its piece when the page opened ("Sesión 1 empezada."); news ends it.
    document.querySelectorAll("main > .messages").forEach((messages) => { messages.remove(); });
  });

  // The stream usually carries the board's rendering of the change: the cards it names
  // (every card, for a change of all) and the panels.
  function refresh(detail) {
    const missing = !detail.all && (detail.pj || []).some((id) => { return !document.getElementById("pj-" + id); });
    const names = detail.all
      ? Object.keys(detail.parts || {}).filter((name) => { return name.indexOf("card:") === 0; })
      : (detail.pj || []).map((id) => { return "card:" + id; });
    const html = given(detail, names.concat(["panels"]));
    if (html !== null) {
      swapParts(html);
    } else {
      fetchParts(board.dataset.refresh, detail).then((answer) => {
        if (answer) swapParts(answer.html);
      }).catch(() => { /* the stream says when the server is away */ });
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
  // place (live/morph.js), then let htmx wire up what is new.
  function swapParts(html) {
    parts(html).forEach((pair) => {
      const old = pair[0], part = pair[1];
      if (part.getAttribute("hx-swap-oob") === "delete") { old.remove(); return; }
      part.removeAttribute("hx-swap-oob");
      if (old.isEqualNode(part)) return; // unchanged (the clock, often): nothing to redo
      const isCard = old.classList.contains("pj-card");
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
      patch(old, part);
      htmx.process(old);
    });
  }

  // A card with a second-tap form open is not replaced under the DJ's finger: it is
  // refreshed when that form closes. Otherwise "More actions" stays open and the focus
  // stays in the card across the swap.
  const kept = {};
  function beforeCardSwap(card) {
    kept[card.id] = {
      open: !!card.querySelector("details.more[open]"),
      focus: card.contains(document.activeElement),
    };
  }
  function afterCardSwap(card) {
    const was = kept[card.id];
    delete kept[card.id];
    if (!was) return;
    const more = card.querySelector("details.more");
    if (more && was.open) more.open = true;
    if (was.focus) card.focus({ preventScroll: true });
  }
  document.body.addEventListener("htmx:oobBeforeSwap", (event) => {
    let target = event.detail.target;
    if (!target) return;
    if (target.id === "clockbar") {
      typing = menuState(target); // the time the DJ is typing in "Other time…" stays
    } else if (target.classList && target.classList.contains("pj-card")) {
      if (target.querySelector(".ask-slot > *")) {
        event.detail.shouldSwap = false;
        target.dataset.stale = "1";
      } else {
        beforeCardSwap(target);
      }
    }
  });
  document.body.addEventListener("htmx:oobAfterSwap", (event) => {
    let target = event.detail.target;
    if (target && target.id === "clockbar" && typing) {
      restoreMenu(document.getElementById("clockbar"), typing);
      typing = null;
    }
    if (target && target.id && target.id.indexOf("pj-") === 0) {
      let card = document.getElementById(target.id);
      if (card) afterCardSwap(card);
    }
  });
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    let target = event.detail.target;
    if (target && target.classList && target.classList.contains("pj-card")) beforeCardSwap(target);
  });
  document.body.addEventListener("htmx:afterSwap", (event) => {
    let target = event.detail.target;
    let card = target && target.id ? document.getElementById(target.id) : null;
    if (card && card.classList.contains("pj-card")) afterCardSwap(card);
  });

  // -- a tap keeps its card where it was on the screen -------------------------------------
  // Replacing the card under the finger (and the clock bar's new toast above it) let the
  // browser's scroll anchoring jump the page at phone width, often to its bottom: after
  // the answer settles, the page scrolls back by however far the tapped card moved.
  let anchor = null;
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    const elt = event.detail.elt;
    const card = elt && elt.closest ? elt.closest("article.pj-card") : null;
    anchor = card ? { id: card.id, top: card.getBoundingClientRect().top } : null;
  });
  document.body.addEventListener("htmx:afterSettle", () => {
    if (!anchor) return;
    const card = document.getElementById(anchor.id);
    if (card) window.scrollBy(0, card.getBoundingClientRect().top - anchor.top);
  });
  document.body.addEventListener("htmx:afterRequest", () => {
    const was = anchor;
    setTimeout(() => { if (anchor === was) anchor = null; }, 1000);
  });

  // -- the sticky clock bar: what scrolls or gets focus stops below it, never under it ----
  function keepClearOfBar() {
    const bar = document.getElementById("clockbar");
    const sticky = bar && getComputedStyle(bar).position === "sticky";
    document.documentElement.style.scrollPaddingTop = sticky ? `${bar.offsetHeight + 8}px` : "";
  }
  if (window.ResizeObserver) {
    const watch = new ResizeObserver(keepClearOfBar);
    const observe = () => { const bar = document.getElementById("clockbar"); if (bar) watch.observe(bar); };
    observe();
    document.body.addEventListener("htmx:oobAfterSwap", (event) => {
      if (event.detail.target && event.detail.target.id === "clockbar") { watch.disconnect(); observe(); }
    });
  }
  keepClearOfBar();

  // -- "More actions": its forms are asked for when it opens (the link is the page of them
  // without JavaScript), again each time its card is new.
  board.addEventListener("toggle", (event) => {
    const more = event.target;
    if (!more.matches || !more.matches("details.more") || !more.open) return;
    const slot = more.querySelector(".more-slot");
    const link = slot && slot.querySelector("a[href]");
    if (link) htmx.ajax("GET", link.getAttribute("href"), { target: slot, swap: "innerHTML" });
  }, true);

  // -- "Other time…": an open menu keeps what is typed in it across the clock bar's swap,
  // closes once its time is sent, on Escape and on a click elsewhere.
  let typing = null;
  function menuState(bar) {
    const menu = bar.querySelector("details.menu[open]");
    if (!menu) return null;
    const fields = [...menu.querySelectorAll("input:not([type=hidden]), select")];
    return fields.map((field) => {
      return { name: field.name, value: field.value, checked: field.checked };
    });
  }
  function restoreMenu(bar, fields) {
    const menu = bar && bar.querySelector("details.menu");
    if (!menu) return;
    menu.open = true;
    fields.forEach((was) => {
      menu.querySelectorAll(`[name="${was.name}"]`).forEach((field) => {
        if (field.type === "radio" || field.type === "checkbox") {
          if (field.value === was.value) field.checked = was.checked; // each box its own
        } else {
          field.value = was.value;
        }
      });
    });
  }
  // Opened on a phone, the panel sits under its button in the bar: bring it into sight.
  board.addEventListener("toggle", (event) => {
    const menu = event.target;
    if (!menu.matches || !menu.matches("details.menu") || !menu.open) return;
    const panel = menu.querySelector(".menu-panel");
    if (panel && panel.getBoundingClientRect().bottom > window.innerHeight) {
      panel.scrollIntoView({ block: "nearest" });
    }
  }, true);
  function closeMenus(except) {
    board.querySelectorAll("details.menu[open]").forEach((menu) => {
      if (menu !== except) menu.open = false;
    });
  }
  // Sent from the menu (its own button, or the Descanso beside it): it closes.
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    const elt = event.detail.elt;
    const menu = elt && elt.closest ? elt.closest("details.menu") : null;
    if (menu) menu.open = false;
  });
  board.addEventListener("submit", (event) => {
    const menu = event.target.closest("details.menu");
    if (menu) menu.open = false;
  });
  // Its time refused: open again, with the reason and what was typed.
  document.body.addEventListener("htmx:afterSwap", (event) => {
    const target = event.detail.target;
    if (!target || target.id !== "other-time-error" || !target.textContent.trim()) return;
    const menu = target.closest("details.menu");
    if (!menu) return;
    menu.open = true;
    const amount = menu.querySelector("[name=amount]");
    if (amount) amount.focus();
  });
  document.addEventListener("click", (event) => {
    closeMenus(event.target.closest ? event.target.closest("details.menu") : null);
  });

  // -- a tap that failed: said on its card (live/taps.js, for one left unanswered) -----
  document.body.addEventListener("htmx:sendError", (event) => {
    if (isPost(event)) tell(event.detail.elt, board.dataset.sendError);
  });
  document.body.addEventListener("htmx:responseError", (event) => {
    if (isPost(event)) tell(event.detail.elt, board.dataset.serverError);
  });
  function isPost(event) {
    return ((event.detail.requestConfig || {}).verb || "").toLowerCase() === "post";
  }

  // -- clicks ----------------------------------------------------------------------
  board.addEventListener("click", (event) => {
    let el = event.target.closest("[data-close-ask], [data-dismiss], [data-help]");
    // The result line, clipped to the clock bar's last line: a tap on it opens it whole
    // over the cards, and another closes it (its links and × keep their own work).
    const line = !el && event.target.closest(".clockbar [data-toast]");
    if (line && !event.target.closest("a, button")) {
      line.classList.toggle("is-open");
      return;
    }
    if (!el) return;
    if (el.hasAttribute("data-close-ask")) {
      closeAsk(el.closest(".ask-slot"));
    } else if (el.hasAttribute("data-dismiss")) {
      const toast = el.closest("[data-toast]");
      if (toast) toast.remove();
    } else {
      openHelp();
    }
  });

  // -- the second-tap choosers: one open at a time on the board, in sight ----------------
  function closeAsk(slot) {
    if (!slot) return;
    slot.innerHTML = "";
    const card = slot.closest("article.pj-card");
    if (card && card.dataset.stale) { delete card.dataset.stale; htmx.trigger(card, "zodiac-refresh"); }
  }
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    const target = event.detail.target;
    if (!target || !target.classList || !target.classList.contains("ask-slot")) return;
    board.querySelectorAll(".ask-slot").forEach((slot) => {
      if (slot !== target && slot.firstElementChild) closeAsk(slot);
    });
  });
  // On a wide screen the clock bar stays at the top of the window: what is brought into
  // sight lands below it (app.css: scroll-margin-top from --bar).
  function barHeight() {
    const bar = document.getElementById("clockbar");
    const sticky = bar && getComputedStyle(bar).position === "sticky";
    document.documentElement.style.setProperty("--bar", (sticky ? bar.offsetHeight : 0) + "px");
  }
  barHeight();
  window.addEventListener("resize", barHeight);
  document.body.addEventListener("htmx:afterSwap", (event) => {
    barHeight();
    const target = event.detail.target;
    if (target && target.classList && target.classList.contains("ask-slot") && target.firstElementChild) {
      target.scrollIntoView({ block: "nearest" });
    }
  });
  // A tap refused on its card: the reason, at the card's top, is brought into sight.
  document.body.addEventListener("htmx:afterSettle", (event) => {
    const elt = event.detail.elt;
    const card = elt && elt.closest ? elt.closest("article.pj-card") : null;
    if (!card || !event.detail.xhr || event.detail.xhr.status < 400) return;
    const error = card.querySelector(".card-error");
    if (error) error.scrollIntoView({ block: "nearest" });
  });

  // A banner of this page's own last step ("La pelea empieza: turno de Oni") is old news
  // once the table moves on: it goes with the first live change (errors stay).
  function oldNews() {
    document.querySelectorAll(".messages .message-success, .messages .message-info")
      .forEach((message) => { message.remove(); });
  }
  document.addEventListener("zodiac:change", oldNews);
  document.body.addEventListener("htmx:afterRequest", (event) => {
    if (isPost(event) && event.detail.successful) oldNews();
  });

  const help = document.getElementById("help");
  // The shortcuts need this script: their button shows only with it (app.css, .js).
  document.documentElement.classList.add("js");
  function openHelp() { if (help && !help.open) help.showModal(); }

  // -- keyboard shortcuts (desktop) ---------------------------------------------------
  const TYPES = { h: "heridas", f: "fatiga", s: "shock", e: "emocion", a: "afeccion" };
  const GRADES = { "1": "leve", "2": "grave", "3": "persistente" };
  let pendingType = null;

  function cards() { return Array.prototype.slice.call(board.querySelectorAll("article.pj-card")); }
  function current() {
    const active = document.activeElement;
    return active && active.closest ? active.closest("article.pj-card") : null;
  }
  function choose(card) {
    if (!card) return;
    card.focus();
    card.scrollIntoView({ block: "nearest" });
  }
  function click(selector, scope) {
    const el = (scope || board).querySelector(selector);
    if (el && !el.disabled) el.click();
    return !!el;
  }

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      const menu = board.querySelector("details.menu[open], details.confirm[open]");
      if (menu) {
        menu.open = false;
        menu.querySelector("summary").focus();
        return;
      }
      const open = board.querySelector(".ask-slot > *");
      if (open) { closeAsk(open.closest(".ask-slot")); return; }
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    if (help && help.open) return; // the dialog handles Esc itself
    const key = event.key;
    const card = current();
    if (pendingType && GRADES[key]) {
      event.preventDefault();
      if (card) {
        click('[data-shortcut-type="' + pendingType + '"][data-shortcut-grade="' + GRADES[key] + '"]', card);
      }
      pendingType = null;
      return;
    }
    pendingType = null;
    const list = cards();
    if (/^[1-9]$/.test(key)) { event.preventDefault(); choose(list[Number(key) - 1]); return; }
    if (key === "j" || key === "k") {
      event.preventDefault();
      const index = list.indexOf(card);
      let next = key === "j" ? index + 1 : index - 1;
      if (index < 0) next = 0;
      choose(list[Math.max(0, Math.min(list.length - 1, next))]);
      return;
    }
    if (TYPES[key]) { if (card) { event.preventDefault(); pendingType = TYPES[key]; } return; }
    if (key === "t" && card) { event.preventDefault(); click("[data-turn-end]", card); return; }
    if (key === "r" && card) { event.preventDefault(); click("[data-roll]", card); return; }
    if (key === "n") { event.preventDefault(); click('[data-shortcut="n"]'); return; }
    if (key === "p") { event.preventDefault(); click('[data-shortcut="p"]'); return; }
    if (key === "u") { event.preventDefault(); click('[data-shortcut="u"]'); return; }
    if (key === "?") { event.preventDefault(); openHelp(); }
  });
})();

/* The DJ's board: live refreshes of cards, keyboard shortcuts, the help overlay,
   closing the second-tap forms and toasts. An ES module (deferred); it starts the live
   channel by importing it. No inline handlers (the CSP forbids them). */
import { listChanged } from "./cards.js";
import { placeBar } from "./bar.js";
import { carry, fillOnOpen, refill } from "./lazy.js";
import { fetchParts, given, parts, patch, tell } from "./live/index.js";
import { pnjSection } from "./pnj.js";
import { tapResults } from "./result.js";

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
      checkList(detail, html);
    } else {
      fetchParts(board.dataset.refresh, detail).then((answer) => {
        if (answer) { swapParts(answer.html); checkList(detail, answer.html); }
      }).catch(() => { /* the stream says when the server is away */ });
    }
    // A session started or ended elsewhere: the session bar (its forms post as plain
    // forms, with this page's token) comes from this page's own rendering.
    if ((detail.kinds || []).indexOf("session") !== -1) {
      htmx.ajax("GET", window.location.pathname, { select: ".session-bar", target: ".session-bar", swap: "outerHTML" });
    }
    // A PJ added, archived or restored elsewhere: the list of cards itself changed.
    if (missing) refreshList();
  }

  function refreshList() {
    htmx.ajax("GET", window.location.pathname, { select: "#cards", target: "#cards", swap: "outerHTML" });
  }

  function checkList(detail, html) {
    if (detail.all && listChanged(board, html)) refreshList();
  }

  // A live refresh is a few parts, each with the id of what it replaces: change them in
  // place (live/morph.js), then let htmx wire up what is new.
  function swapParts(html) {
    let bar = false; // a part of the clock bar changed: it is placed anew (bar.js)
    parts(html).forEach((pair) => {
      const old = pair[0], part = pair[1];
      if (part.getAttribute("hx-swap-oob") === "delete") { old.remove(); return; }
      part.removeAttribute("hx-swap-oob");
      if (old.isEqualNode(part)) return; // unchanged (the clock, often): nothing to redo
      if (old.closest("#clockbar")) bar = true;
      const isCard = old.classList.contains("pj-card");
      if (isCard && old.querySelector(".ask-slot > *")) { old.dataset.stale = "1"; return; }
      if (isCard) { updateCard(old, part, false); } else { patch(old, part); }
      htmx.process(old);
    });
    fitToast();
    if (bar) placeBar();
  }

  // -- a card anew, changed in place -----------------------------------------------------
  // Every new rendering of a card, this page's own answer or live news, changes the card
  // on the page in place (live/morph.js) rather than replacing it: the control the DJ
  // used keeps the focus, the page does not move under the finger (a replaced card let
  // the browser's scroll anchoring jump the page at phone width), and an open "More
  // actions" or "Whole card" stays open and filled, asked again once the card is new
  // (lazy.js). `own`: this page's answer, which ends the words a tap left on the card
  // (live news keeps them).
  function updateCard(old, fresh, own) {
    if (own) old.querySelectorAll("[data-keep]").forEach((node) => { node.remove(); });
    const open = carry(old, fresh);
    patch(old, fresh);
    refill(old, open);
  }
  // htmx's answers for a card (its own forms, the card's refresh) and for the whole list of
  // cards are changed in place too: htmx swaps only their out-of-band parts (swap "none"),
  // and the card or the list is patched here, as htmx would have swapped it.
  const morphs = new WeakMap(); // the request's xhr -> the target to patch
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    const target = event.detail.target;
    const post = ((event.detail.requestConfig || {}).verb || "") === "post";
    const list = target && target.id === "cards" && post; // not the list asked anew (refresh)
    if (!event.detail.shouldSwap || !target || !(list || target.classList.contains("pj-card"))) return;
    morphs.set(event.detail.xhr, target);
    event.detail.swapOverride = "none";
  });
  document.body.addEventListener("htmx:afterSwap", (event) => {
    const target = morphs.get(event.detail.xhr);
    if (!target || target !== event.detail.target) return;
    morphs.delete(event.detail.xhr);
    const answer = document.createElement("template");
    answer.innerHTML = event.detail.xhr.response;
    const fresh = [...answer.content.children].filter((el) => { return !el.hasAttribute("hx-swap-oob"); });
    if (target.id === "cards") {
      const list = target.cloneNode(false);
      list.append(...fresh);
      // Each card that stays is changed on its own; the list then finds it as it is.
      [...list.children].forEach((part) => {
        const old = part.id && document.getElementById(part.id);
        if (!old || old.parentElement !== target) return;
        if (old.querySelector(".ask-slot > *")) old.dataset.stale = "1";
        else updateCard(old, part, true);
        part.replaceWith(old.cloneNode(true));
      });
      patch(target, list);
    } else {
      const card = fresh.find((el) => { return el.id === target.id; });
      if (card) updateCard(target, card, true);
    }
    htmx.process(target);
  });
  // A card that comes beside another answer (out of band): in place as well. One with a
  // second-tap form open is not changed under the DJ's finger: it is refreshed when that
  // form closes.
  document.body.addEventListener("htmx:oobBeforeSwap", (event) => {
    const target = event.detail.target;
    if (!target || !target.classList || !target.classList.contains("pj-card")) return;
    event.detail.shouldSwap = false;
    if (target.querySelector(".ask-slot > *")) { target.dataset.stale = "1"; return; }
    const fresh = event.detail.fragment && event.detail.fragment.firstElementChild;
    if (!fresh) return;
    fresh.removeAttribute("hx-swap-oob");
    updateCard(target, fresh, true);
    htmx.process(target);
  });
  document.body.addEventListener("htmx:oobBeforeSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "clockbar") {
      typing = menuState(event.detail.target); // the time the DJ is typing in "Other time…" stays
    }
  });
  document.body.addEventListener("htmx:oobAfterSwap", (event) => {
    const target = event.detail.target;
    if (target && target.id === "clockbar" && typing) {
      restoreMenu(document.getElementById("clockbar"), typing);
      typing = null;
    }
  });

  // -- "More actions" and "Whole card": asked for when they open (lazy.js) -------------
  fillOnOpen(board);
  pnjSection(board); // the add form emptied after an add, the area blow's marks (pnj.js)
  tapResults(board); // a tap's result by its card where the clock bar's line is out of sight

  // -- the focus stays on the control the DJ used -----------------------------------------
  // A control is found again in its new rendering by what it is (its box, its name and
  // value, its shortcut), not by the node: the node may be new. Where it went (a check
  // rolled), the focus goes to its card; after the turn passes, to the new turn's button.
  const MARKS = ["data-shortcut-type", "data-shortcut-grade", "data-shortcut", "data-turn-end",
    "data-roll", "data-close-ask", "data-dismiss", "name", "value"];
  function describe(el) {
    if (!el || !el.closest || el === document.body || !board.contains(el)) return null;
    const scope = el.closest("article.pj-card, #clockbar, #turnbar, #cards, #board");
    let selector = el.tagName.toLowerCase();
    if (el.tagName === "SUMMARY" && el.parentElement.classList.length) {
      selector = `details.${CSS.escape(el.parentElement.classList[0])} > summary`;
    }
    MARKS.forEach((name) => {
      if (el.hasAttribute(name)) selector += `[${name}="${CSS.escape(el.getAttribute(name))}"]`;
    });
    const index = [...scope.querySelectorAll(selector)].indexOf(el);
    const turn = el.matches("[data-turn-end], [data-shortcut='p']") && !!board.querySelector("#fight .fight-head");
    return { scope: scope.id, selector, index, turn };
  }
  function shown(el) { return !!el && !el.disabled && el.getClientRects().length > 0; }
  // `exact`: that very one, else none (not the first of its kind).
  function locate(desc, exact) {
    const scope = desc && document.getElementById(desc.scope);
    if (!scope) return null;
    const all = [...scope.querySelectorAll(desc.selector)].filter(shown);
    return all[desc.index] || (exact ? null : all[0]) || null;
  }
  function inView(el) {
    const rect = el.getBoundingClientRect();
    return rect.bottom > barBottom() && rect.top < window.innerHeight;
  }
  // The focus lost with its control's rendering goes back to it (or where `desc` says).
  function refocus(desc) {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    let el = locate(desc);
    if (!el && desc.turn) {
      el = [board.querySelector(".pj-card.is-turn [data-turn-end]"), board.querySelector('[data-shortcut="p"]')]
        .find(shown) || null;
    }
    const card = document.getElementById(desc.scope);
    if (!el && card && card.matches("article.pj-card")) el = card;
    if (!el) return;
    el.focus({ preventScroll: true });
    if (!inView(el)) el.scrollIntoView({ block: "nearest" });
  }
  // Taken before each answer is swapped in, given back once it has settled (in a chooser:
  // to the control that opened it).
  const focusWas = new WeakMap(); // the request's xhr -> where the focus was
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    const active = document.activeElement;
    const slot = active && active.closest ? active.closest(".ask-slot") : null;
    const desc = slot && openers[slot.id] ? openers[slot.id].desc : describe(active);
    if (desc && event.detail.xhr) focusWas.set(event.detail.xhr, desc);
  });
  document.body.addEventListener("htmx:afterSettle", (event) => {
    const desc = focusWas.get(event.detail.xhr);
    if (desc) { focusWas.delete(event.detail.xhr); refocus(desc); }
  });

  // -- a tap keeps its control where it was on the screen ---------------------------------
  // After the answer, the page scrolls by however far the tapped control moved (its card's
  // top, if the control went): the clock bar's new line above it, or a card that grew,
  // never moves it from under the finger. A chooser opening is brought into sight instead.
  const places = new WeakMap(); // the request's xhr -> where its control was
  function control(event) {
    const elt = event.detail.elt;
    if (!elt || !elt.closest) return null;
    if (elt.tagName !== "FORM") return elt;
    const trigger = (event.detail.requestConfig || {}).triggeringEvent;
    if (trigger && trigger.submitter) return trigger.submitter;
    const active = document.activeElement;
    return elt.contains(active) ? active : elt.querySelector("button") || elt;
  }
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    const target = event.detail.target, xhr = event.detail.xhr;
    if (!xhr || !target || (target.classList && target.classList.contains("ask-slot"))) return;
    const el = control(event);
    const card = el && el.closest("article.pj-card");
    if (!card) return;
    places.set(xhr, {
      desc: describe(el), top: el.getBoundingClientRect().top,
      card: card.id, cardTop: card.getBoundingClientRect().top,
    });
  });
  function holdPlace(event) {
    const was = places.get(event.detail.xhr);
    if (!was) return;
    const el = locate(was.desc, true);
    const card = document.getElementById(was.card);
    const moved = el ? el.getBoundingClientRect().top - was.top
      : card ? card.getBoundingClientRect().top - was.cardTop : 0;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
  }
  document.body.addEventListener("htmx:afterSwap", holdPlace);
  document.body.addEventListener("htmx:afterSettle", holdPlace);

  // -- the sticky clock bar: what scrolls or gets focus stops below it, never under it ----
  if (window.ResizeObserver) {
    const watch = new ResizeObserver(placeBar); // (bar.js)
    const observe = () => { const bar = document.getElementById("clockbar"); if (bar) watch.observe(bar); };
    observe();
    document.body.addEventListener("htmx:oobAfterSwap", (event) => {
      if (event.detail.target && event.detail.target.id === "clockbar") { watch.disconnect(); observe(); }
    });
  }
  placeBar();

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
  // "Other time…" and "Recordatorios…" (details.pin) fold when a click lands elsewhere.
  function closeMenus(except) {
    board.querySelectorAll("details.menu[open], details.pin[open]").forEach((menu) => {
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
    closeMenus(event.target.closest ? event.target.closest("details.menu, details.pin") : null);
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
    // The result line, clipped to the clock bar's last line: a tap on it or on its "see
    // all" opens it whole over the cards, and another closes it (its links and × keep
    // their own work).
    const line = !el && event.target.closest(".clockbar [data-toast]");
    if (line && (event.target.closest("[data-toast-more]") || !event.target.closest("a, button"))) {
      openToast(line, !line.classList.contains("is-open"));
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

  // -- the result line: its "see all" shows where it is clipped; its links cut off are out
  // of the Tab order until it opens (they are read whole by a screen reader all the same).
  function fitToast() {
    const toast = board.querySelector(".clockbar [data-toast]");
    if (!toast) return;
    const open = toast.classList.contains("is-open");
    const lines = [...toast.querySelectorAll(".toast-head, .toast-lines")];
    const more = toast.querySelector("[data-toast-more]");
    if (more) {
      more.hidden = false; // its room taken first: what is clipped is measured beside it
      more.hidden = !open && !lines.some((line) => { return line.scrollWidth > line.clientWidth + 1; });
      more.setAttribute("aria-expanded", String(open));
    }
    toast.querySelectorAll("a[href]").forEach((link) => {
      const line = link.closest(".toast-head, .toast-lines");
      const room = line && line.getBoundingClientRect();
      const rect = link.getBoundingClientRect();
      // The ellipsis takes the last em or so of the line.
      const cut = !open && room && (rect.right > room.right - 16 || rect.bottom > room.bottom + 1);
      if (cut) link.tabIndex = -1;
      else link.removeAttribute("tabindex");
    });
  }
  function openToast(toast, open) {
    toast.classList.toggle("is-open", open);
    fitToast();
  }
  fitToast();
  window.addEventListener("resize", fitToast);
  // A new toast is measured once the answer is all in, before the next frame: measuring
  // it in the middle of the answer's swaps made the page lay out once more.
  let fitting = 0;
  document.body.addEventListener("htmx:oobAfterSwap", (event) => {
    const target = event.detail.target;
    if (!target || (target.id !== "clockbar" && target.id !== "toasts") || fitting) return;
    fitting = window.requestAnimationFrame(() => { fitting = 0; fitToast(); });
  });

  // -- the second-tap choosers: one open at a time on the board, in sight ----------------
  // A chooser opened (by a click, Space, Enter or a shortcut) is brought into sight below
  // the clock bar and takes the focus: its own first field or choice. Closed (Cancel,
  // Escape), it gives the focus back to the control that opened it, and a choice's answer
  // does too (above: refocus). openers: the ask slot's id -> that control.
  const openers = {};
  function closeAsk(slot) {
    if (!slot) return;
    const active = document.activeElement;
    const had = !active || active === document.body || slot.contains(active);
    slot.innerHTML = "";
    const opener = openers[slot.id];
    delete openers[slot.id];
    if (had && opener) {
      const el = opener.el.isConnected ? opener.el : locate(opener.desc);
      if (el) { el.focus({ preventScroll: true }); if (!inView(el)) el.scrollIntoView({ block: "nearest" }); }
    }
    const card = slot.closest("article.pj-card");
    if (card && card.dataset.stale) { delete card.dataset.stale; htmx.trigger(card, "zodiac-refresh"); }
  }
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    const target = event.detail.target;
    if (!target || !target.classList || !target.classList.contains("ask-slot")) return;
    board.querySelectorAll(".ask-slot").forEach((slot) => {
      if (slot !== target && slot.firstElementChild) closeAsk(slot);
    });
    const el = control(event);
    if (el) openers[target.id] = { el, desc: describe(el) };
  });
  // On a wide screen the clock bar stays at the top of the window: what is brought into
  // sight lands below it (app.css: scroll-margin-top from --bar, bar.js).
  // Where the window's free room starts: below the clock bar while it stays at the top.
  function barBottom() {
    const bar = document.getElementById("clockbar");
    if (!bar || getComputedStyle(bar).position !== "sticky") return 0;
    return Math.max(0, bar.getBoundingClientRect().bottom);
  }
  // `el` whole in the window's free room; its top first when it does not fit.
  function reveal(el) {
    const rect = el.getBoundingClientRect();
    const top = barBottom() + 8, bottom = window.innerHeight - 8;
    if (rect.top >= top && rect.bottom <= bottom) return;
    const fits = rect.height <= bottom - top;
    window.scrollBy(0, fits && rect.top >= top ? rect.bottom - bottom : rect.top - top);
  }
  // The bar is measured when its size changes (its ResizeObserver, above: it reports after
  // the page's layout, never forcing one), on resize, and when a part of it is swapped (the
  // turn's chip may have moved); a card's swap elsewhere leaves it alone.
  window.addEventListener("resize", placeBar);
  const inBar = (el) => el && el.closest && el.closest("#clockbar");
  document.body.addEventListener("htmx:oobAfterSwap", (event) => {
    if (inBar(event.detail.target)) placeBar();
  });
  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (!window.ResizeObserver || inBar(event.detail.target)) placeBar();
    const target = event.detail.target;
    if (!target || !target.classList || !target.classList.contains("ask-slot") || !target.firstElementChild) return;
    reveal(target);
  });
  // The focus goes in once htmx has wired the chooser's form (at its settle): a key pressed
  // sooner would post the form as a plain page.
  document.body.addEventListener("htmx:afterSettle", (event) => {
    const target = event.detail.target;
    if (!target || !target.classList || !target.classList.contains("ask-slot") || !target.firstElementChild) return;
    if (target.contains(document.activeElement)) return;
    const title = target.querySelector(".ask-title");
    const first = target.querySelector("[autofocus]")
      || [...target.querySelectorAll(".ask-choices button, .ask-choices input")].find(shown);
    if (first) {
      first.focus({ preventScroll: true });
    } else if (title) {
      title.tabIndex = -1;
      title.focus({ preventScroll: true });
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
      const menu = board.querySelector("details.menu[open], details.confirm[open], details.pin[open]");
      if (menu) {
        menu.open = false;
        menu.querySelector("summary").focus();
        return;
      }
      const open = board.querySelector(".ask-slot > *");
      if (open) { closeAsk(open.closest(".ask-slot")); return; }
      const toast = board.querySelector(".clockbar [data-toast].is-open");
      if (toast) {
        const inside = toast.contains(document.activeElement);
        openToast(toast, false);
        const more = toast.querySelector("[data-toast-more]");
        if (inside && more) more.focus();
        return;
      }
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

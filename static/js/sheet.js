/* A player's sheet: live refreshes of its cards, the offline banner, and a copy of the
   last state kept for reading offline. An ES module (deferred); it starts the live
   channel by importing it. No inline handlers (the CSP forbids them). The page works
   without it, as a plain page with a "Roll" form. */
import { fetchParts, given, news, parts, patch } from "./live/index.js";

(() => {
  const sheet = document.getElementById("sheet");
  if (!sheet) return;
  const live = document.getElementById("live");
  const banner = document.getElementById("offline");
  const KEEP = "zodiac-sheets-v1"; // the service worker (sw.js) reads this cache too
  const KEEP_QUIET_MS = 2000; // the offline copy waits for this much quiet (keep, below)
  let keepTimer = null;
  // The last word on the network besides the stream's state: "down" when the phone went
  // offline or a roll or a refresh could not be sent, "up" when it came back or the server
  // was heard (live/index.js: zodiac:alive). News heard is the last word: a phone may say
  // it is offline while its stream to the table's server still carries the DJ's changes.
  let word = navigator.onLine === false ? "down" : "up";

  // -- live: fetch this sheet's own rendering of what changed -------------------------
  // live/ leaves out the news this page's own roll already showed.
  document.body.addEventListener("htmx:afterSettle", keepSoon);
  // A roll with no network never reached the DJ: say so, and keep the button to try again.
  document.body.addEventListener("htmx:sendError", () => {
    word = "down";
    showBanner();
    const toasts = document.getElementById("toasts");
    if (!toasts) return;
    toasts.innerHTML = "";
    let toast = document.createElement("div");
    toast.className = "toast toast-error";
    toast.setAttribute("data-toast", "");
    toast.setAttribute("role", "alert");
    toast.textContent = sheet.dataset.sendError || "";
    toasts.appendChild(toast);
  });
  document.addEventListener("zodiac:change", (event) => {
    refresh(event.detail || {});
    // A flash said its piece when the page opened ("Welcome to…"); the first news ends it.
    document.querySelectorAll("main > .messages").forEach((messages) => { messages.remove(); });
  });

  // The parts of a change this sheet shows: its PJ's own card, the party's cards on it,
  // and the clock line. The stream usually carries them; else the sheet asks.
  const own = sheet.dataset.pj;
  function names(detail) {
    let shown = Array.prototype.map.call(sheet.querySelectorAll("article.pj-card[data-pj]"), (card) => {
      return card.dataset.pj;
    });
    const changed = detail.all ? shown : (detail.pj || []).map(String).filter((id) => {
      return shown.indexOf(id) !== -1;
    });
    const list = changed.map((id) => { return (id === own ? "own:" : "party:") + id; }).concat(["status"]);
    // The PNJ of the fight as players see them (a PNJ's change names no card here).
    return detail.foes ? list.concat(["foes"]) : list;
  }

  function refresh(detail) {
    // The campaign's options changed (the party shown on sheets, or not): load anew.
    if ((detail.kinds || []).indexOf("campaign") !== -1) { window.location.reload(); return Promise.resolve(); }
    let html = given(detail, names(detail));
    if (html !== null) {
      show(html);
      return Promise.resolve();
    }
    return fetchParts(sheet.dataset.refresh, detail).then((answer) => {
      if (!answer) return;
      // 404: this PJ is no longer ours to see (the DJ took it back): show what the server says.
      if (answer.status === 404 || answer.status === 403) { window.location.reload(); return; }
      if (answer.html) show(answer.html);
    }).catch(() => { word = "down"; showBanner(); });
  }

  // A part changed in place is handed to htmx only when the news holds htmx's attributes
  // (a check's roll form): htmx's pass over a card that has none finds nothing to wire and
  // costs more than the change itself.
  function show(html) {
    const wired = window.htmx && html.indexOf("hx-") !== -1;
    parts(html).forEach((pair) => {
      const old = pair[0], part = pair[1];
      if (part.getAttribute("hx-swap-oob") === "delete") { old.remove(); return; }
      if (old.isEqualNode(part)) return;
      patch(old, part);
      if (wired) htmx.process(old);
    });
    keepSoon();
    showBanner();
  }

  // -- offline: a banner with the time of the last state shown ------------------------
  // The time of the state shown, as the server wrote it (its clock and the page's language,
  // not the phone's).
  function updatedAt() {
    const time = document.getElementById("sheet-updated");
    return time ? time.textContent.trim() : "";
  }

  // Down: the stream says it is reconnecting, or the last word the page had of its network
  // (`word`) said it was gone and nothing was heard from the server since.
  function isDown() {
    if (word === "down") return true;
    const state = live && live.dataset.state;
    return state === "reconnecting";
  }

  let wasDown = false;
  function showBanner() {
    const down = isDown();
    if (banner) {
      // Written only when it changes: each live change passes here.
      const text = down
        ? sheet.dataset.offline + " · " + sheet.dataset.updatedLabel + " " + updatedAt()
        : "";
      if (banner.textContent !== text) banner.textContent = text;
      if (banner.hidden === down) banner.hidden = !down;
    }
    document.documentElement.classList.toggle("is-offline", down);
    if (down) keepPending(); // the page shows its last state: that is the copy to keep
    // Back online: catch up with everything, whatever the stream replays by itself.
    if (wasDown && !down) news({ all: true });
    wasDown = down;
  }
  window.addEventListener("online", () => { word = "up"; showBanner(); });
  window.addEventListener("offline", () => { word = "down"; showBanner(); });
  // The server was heard: the stream's own news is current (what it missed it replays),
  // so nothing to catch up with.
  document.addEventListener("zodiac:alive", () => {
    if (word === "up" && !wasDown) return;
    word = "up";
    wasDown = false;
    showBanner();
  });
  if (live) new MutationObserver(showBanner).observe(live, { attributes: true, attributeFilter: ["data-state"] });
  showBanner();

  // -- the last state, kept for reading offline ---------------------------------------
  // The service worker serves this page from the cache when the network is gone; the copy
  // is the state the player last saw. It is written once the sheet has had no news for
  // KEEP_QUIET_MS (a burst of changes, a tap and its checks, is written once rather than
  // at each change), and at once when the page hides, is frozen or loses its network: the
  // moments before it could be opened again without one.
  function keepSoon() {
    window.clearTimeout(keepTimer);
    keepTimer = window.setTimeout(keep, KEEP_QUIET_MS);
  }
  function keepPending() {
    if (keepTimer !== null) keep();
  }
  function keep() {
    window.clearTimeout(keepTimer);
    keepTimer = null;
    if (!window.caches || !window.isSecureContext) return;
    const copy = document.documentElement.cloneNode(true);
    Array.prototype.forEach.call(copy.querySelectorAll("[data-toast], #offline"), (el) => {
      if (el.id === "offline") { el.hidden = true; el.textContent = ""; } else { el.remove(); }
    });
    copy.classList.remove("is-offline");
    const html = "<!doctype html>\n" + copy.outerHTML;
    caches.open(KEEP).then((cache) => {
      return cache.put(window.location.pathname, new Response(html, {
        headers: { "Content-Type": "text/html; charset=utf-8" },
      }));
    }).catch(() => { /* storage full or refused: reading offline falls back to the last page load */ });
  }
  keep();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") keepPending();
  });
  window.addEventListener("pagehide", keepPending);
  document.addEventListener("freeze", keepPending);

  // -- toasts close on a tap ------------------------------------------------------------
  sheet.addEventListener("click", (event) => {
    const close = event.target.closest("[data-dismiss]");
    if (!close) return;
    const toast = close.closest("[data-toast]");
    if (toast) toast.remove();
  });
})();

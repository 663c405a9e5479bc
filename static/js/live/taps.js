// Taps: each htmx POST keyed, dated on the server's clock, and abandoned when unanswered.
//
// Each htmx POST is dated on the server's clock (X-Zodiac-Sent; the stream tells the
// clock, setServerOffset) and abandoned after TAP_GIVES_UP_MS without an answer; the
// server refuses a tap past its deadline (campaign/deadline.py), so an abandoned tap is
// never applied late. Words about a tap (unanswered, refused, failed) go next to it (tell).

const TAP_GIVES_UP_MS = 8000; // longer than TAP_SECONDS (campaign/deadline.py)

let serverOffset = null; // the server's clock minus this page's, in ms

export const serverClock = () => serverOffset;

// Whether this page is its browser's only page of its campaign (tabs.js; unknown: no).
// A tap from the only one says so (X-Zodiac-Only-Tab): the tap's answer is all this
// browser needs of the change, and its stream is sent the news without the rendering
// (campaign/live/views.py). Another page of the campaign in the browser would need it.
let onlyTab = () => false;
export function onlyTabSays(ask) {
  onlyTab = ask;
}
export function setServerOffset(offset) {
  serverOffset = offset;
}

export const newKey = () =>
  window.crypto && crypto.randomUUID
    ? crypto.randomUUID().replace(/-/g, "")
    : String(Date.now()) + Math.random().toString(16).slice(2);

// The server refused this tap, writing nothing: it came past its deadline
// (campaign/middleware.py), or the server was too busy to take it (campaign/views/errors.py).
// Its answer is the words to show.
export const refused = (xhr) =>
  !!xhr && xhr.status === 409 && !!xhr.getResponseHeader("X-Zodiac-Refused");

// `live`: the #live element (its data-unanswered says a tap was given up on).
export function watchTaps(live) {
  if (window.htmx) htmx.config.timeout = TAP_GIVES_UP_MS;

  // A double tap is one tap. The browser counts a finger's (or a mouse's) quick second
  // click on the same spot (its detail is 2); the first may already be answered, its form
  // holding a fresh key, so the key alone would record the second too. Keys (Enter, Space)
  // say 0 and go through.
  document.addEventListener("click", (event) => {
    if (event.detail < 2) return;
    const button = event.target.closest ? event.target.closest("button, input[type=submit]") : null;
    if (!button || button.type === "button") return;
    const form = button.form;
    if (button.hasAttribute("hx-post") || (form && form.hasAttribute("hx-post"))) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  document.body.addEventListener("htmx:afterRequest", (event) => {
    const xhr = event.detail.xhr;
    if (refused(xhr)) tell(event.detail.elt, xhr.responseText);
  });
  document.body.addEventListener("htmx:configRequest", (event) => {
    const detail = event.detail;
    if (detail.verb !== "post") return;
    // Forms from a live rendering carry no idempotency key: each form element gets one,
    // kept until the element is replaced, so a double tap still records once.
    const form = detail.elt.closest ? detail.elt.closest("form") : null;
    if (form && !detail.parameters.key) {
      if (!form.dataset.key) form.dataset.key = newKey();
      detail.parameters.key = form.dataset.key;
    }
    if (serverOffset !== null) {
      detail.headers["X-Zodiac-Sent"] = String(Math.round(Date.now() + serverOffset));
    }
    if (onlyTab()) detail.headers["X-Zodiac-Only-Tab"] = "1";
  });
  document.body.addEventListener("htmx:timeout", (event) => {
    const verb = ((event.detail.requestConfig || {}).verb || "").toLowerCase();
    if (verb === "post") tell(event.detail.elt, live.dataset.unanswered || "");
  });
}

// Words about a tap, next to it: on its card, else in the nearest error line, else after it.
// On a card they stay while live news changes it (morph.js leaves data-keep alone), until
// the card is answered anew.
export function tell(elt, text) {
  const card = elt && elt.closest ? elt.closest("article.pj-card") : null;
  let slot = card && card.querySelector(".card-error");
  if (card && !slot) {
    slot = document.createElement("p");
    slot.className = "card-error";
    slot.setAttribute("role", "alert");
    slot.dataset.keep = "";
    const head = card.querySelector(".pj-head");
    if (head) head.after(slot);
    else card.prepend(slot);
  }
  // Off the cards: the error line of the nearest part of the page that has one (the
  // clock bar, "Otro tiempo…", the void form).
  let zone = !slot && elt && elt.closest ? elt : null;
  while (zone && !slot) {
    slot = zone.querySelector(":scope > .control-error");
    zone = zone.parentElement;
  }
  if (!slot && elt && elt.closest) {
    slot = document.createElement("p");
    slot.className = "card-error";
    slot.setAttribute("role", "alert");
    (elt.closest("form") || elt).after(slot);
  }
  if (slot) slot.textContent = text;
}

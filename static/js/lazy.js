/* The parts of a board card asked for when their <details> opens: "More actions" and a
   PNJ's "Whole card". Each <details> holds a slot [data-lazy] with a link to the part's
   own page (the way without JavaScript); opened, the slot is filled with the part, and
   again, changed in place, each time its card is new, so an open part stays open and
   filled. The slot is aria-busy while the part is on its way. */
import { patch } from "./live/index.js";

const waiting = (slot) => { return Boolean(slot.querySelector(":scope > a[href]")); };

// The open parts of `root` that were filled, leaving out those inside another (filling
// that one fills them again).
function openParts(root) {
  const slots = [...root.querySelectorAll("details[open] > [data-lazy]")].filter((slot) => { return !waiting(slot); });
  return slots.filter((slot) => { return !slots.some((other) => { return other !== slot && other.contains(slot); }); });
}

// Before `old` is changed in place to `fresh` (a new rendering, not on the page): each
// open part of `old` goes into `fresh` as it is, so the change keeps it. Returns their
// addresses, to be asked for anew (fill) once `old` is changed.
export function carry(old, fresh) {
  return openParts(old).map((slot) => {
    const url = slot.dataset.lazy;
    const twin = fresh.querySelector(`[data-lazy="${CSS.escape(url)}"]`);
    if (twin) twin.replaceChildren(...slot.cloneNode(true).childNodes);
    return url;
  });
}

// The slots of `root` at `urls`, filled anew.
export function refill(root, urls) {
  urls.forEach((url) => { fill(root.querySelector(`[data-lazy="${CSS.escape(url)}"]`)); });
}

export function fill(slot) {
  const url = slot && slot.dataset.lazy;
  if (!url) return;
  slot.setAttribute("aria-busy", "true");
  fetch(url, { headers: { "HX-Request": "true" }, credentials: "same-origin", cache: "no-store" })
    .then((response) => { return response.ok ? response.text() : null; })
    .then((html) => {
      if (html === null || !slot.isConnected) return;
      const fresh = slot.cloneNode(false);
      fresh.innerHTML = html;
      if (waiting(slot)) {
        // The link had the focus (a keyboard got there first): it goes to the part's first control.
        const focused = slot.contains(document.activeElement);
        slot.replaceChildren(...fresh.childNodes);
        const first = focused && slot.querySelector("a[href], button, input, select, textarea, summary");
        if (first) first.focus();
      } else {
        const inner = carry(slot, fresh); // "More actions" open in a "Whole card"
        patch(slot, fresh);
        refill(slot, inner);
      }
      window.htmx.process(slot);
    })
    .catch(() => { /* the link stays: the part's own page */ })
    .finally(() => { slot.removeAttribute("aria-busy"); });
}

export function fillOnOpen(board) {
  board.addEventListener("toggle", (event) => {
    const details = event.target;
    if (!details.matches || !details.matches("details") || !details.open) return;
    const slot = details.querySelector(":scope > [data-lazy]");
    if (slot && waiting(slot) && !slot.hasAttribute("aria-busy")) fill(slot);
  }, true);
}

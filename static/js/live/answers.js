// The page's own answers, and the news they make old.
//
// The page's own actions answer with the cards they changed, already rendered: each answer
// says the cursor it reflects (X-Change-Cursor) and the cards it holds (X-Change-Pj: ids,
// or "all"), and the news of those cards up to that cursor is no news here. While one of
// the page's own actions is on its way, news waits for its answer (the answer may be that
// news), and a refresh that lands meanwhile is asked again after it (parts.js, fetchParts).
//
// News leaves this module as a `zodiac:change` event on document, detail
// {cursor, pj, all, kinds, foes, parts}.

import { refused } from "./taps.js";

// News waits this long, at most, for the answer of one of the page's own actions: an
// answer that takes longer (a bad network) does not keep the other cards stale.
const HOLD_MS = 1500;

let posting = 0;
let postingSince = 0;
let held = [];
let holdTimer = null;
let freshAll = 0; // every card is as new as this cursor
const freshCards = new Map(); // PJ id -> the cursor its card is as new as

// One of the page's own actions is on its way, and news still waits for it.
export const holding = () => posting && Date.now() - postingSince < HOLD_MS;

// A change for this page: held while an answer is on its way, left out when the page's
// own answers already showed it, else dispatched. `cursor` undefined: everything anew.
export function news(detail) {
  if (holding()) {
    held.push(detail);
    if (!holdTimer) holdTimer = window.setTimeout(release, postingSince + HOLD_MS - Date.now());
    return;
  }
  const at = detail.cursor || Infinity; // no cursor: the page asks for everything anew
  if (at <= freshAll) return;
  if (!detail.all) {
    const pj = (detail.pj || []).filter((id) => !(freshCards.get(String(id)) >= at));
    // A sheet hears a PNJ's change as `foes` with no card named (what players see of the
    // PNJ is the foes part's to say): that is news too, whatever the cards.
    if (!pj.length && !detail.foes) return;
    detail = { ...detail, pj };
  }
  document.dispatchEvent(new CustomEvent("zodiac:change", { detail }));
}

// Several pieces of news as one: one refresh after the wait, not one each (fetched: the
// parts each carried are of different moments).
function merged(details) {
  const dated = details.every((d) => d.cursor);
  return {
    cursor: dated ? Math.max(...details.map((d) => d.cursor)) : undefined,
    pj: [...new Set(details.flatMap((d) => d.pj || []))],
    all: details.some((d) => d.all),
    kinds: [...new Set(details.flatMap((d) => d.kinds || []))],
    foes: details.some((d) => d.foes),
  };
}

// The held news goes out: the page's own answer came, or took too long.
function release() {
  window.clearTimeout(holdTimer);
  holdTimer = null;
  const waiting = held;
  held = [];
  if (waiting.length === 1) news(waiting[0]);
  else if (waiting.length) news(merged(waiting));
}

// Follows the page's htmx POSTs: how many are on their way, and what their answers hold.
export function watchAnswers() {
  // Counted from the send to the end of the exchange, whatever its end (answer, error,
  // abort): a request a listener cancels before it is sent is never counted.
  document.body.addEventListener("htmx:beforeSend", (event) => {
    const xhr = event.detail.xhr;
    if ((event.detail.requestConfig || {}).verb !== "post" || !xhr) return;
    if (!posting) postingSince = Date.now();
    posting += 1;
    xhr.addEventListener("loadend", () => {
      posting = Math.max(0, posting - 1);
      if (!posting) release();
    });
  });
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const xhr = event.detail.xhr;
    if (refused(xhr)) return; // taps.js says so on the card
    const at = Number(xhr && xhr.getResponseHeader("X-Change-Cursor")) || 0;
    const covers = (xhr && xhr.getResponseHeader("X-Change-Pj")) || "";
    if (!at) return;
    if (covers === "all") {
      freshAll = Math.max(freshAll, at);
      return;
    }
    for (const id of covers.split(" ").filter(Boolean)) {
      freshCards.set(id, Math.max(freshCards.get(id) || 0, at));
    }
  });
}

/* A tap's result by what was tapped. The last tap's line (#toasts) is the clock bar's; on a
   phone the bar scrolls away with the page's top, so a tap on a card far below would
   tell its result off the screen. Then a copy of that line shows under the card's boxes
   (or under the PNJ section's form that was sent), with its own ×: one on the board, the
   last tap's; a live change keeps it (data-keep), the card's next answer ends it. Where
   the line is in sight (a wide screen's bar stays at the top) nothing is added. The
   line itself stays the one a screen reader hears (aria-live): the copy is not live. */

const sent = new WeakMap(); // the request's xhr -> what was tapped: its card, or its form

function inSight(el) {
  const rect = el.getBoundingClientRect();
  return rect.height > 0 && rect.bottom > 0 && rect.top < window.innerHeight;
}

// Under `anchor` (the card's boxes, or the form), or above it where the window (or the
// turn's bar at its foot) ends first: board.js then keeps the tapped control where it was
// on the screen, so the copy above it is in sight.
function place(copy, anchor) {
  anchor.after(copy);
  const turnbar = document.getElementById("turnbar");
  const floor = window.innerHeight - (turnbar && inSight(turnbar) ? turnbar.offsetHeight : 0);
  if (copy.getBoundingClientRect().bottom > floor) anchor.before(copy);
}

function shown(board, what) {
  board.querySelectorAll(".card-result").forEach((old) => { old.remove(); });
  const line = document.querySelector("#toasts [data-toast]");
  if (!line || inSight(line) || !what.isConnected) return;
  const copy = line.cloneNode(true);
  copy.classList.remove("is-open");
  copy.classList.add("card-result");
  copy.dataset.keep = "";
  copy.removeAttribute("aria-live");
  copy.querySelectorAll("[data-toast-more]").forEach((more) => { more.remove(); });
  const anchor = what.matches("article.pj-card") ? what.querySelector("form.apply") || what.firstElementChild : what;
  place(copy, anchor);
}

export function tapResults(board) {
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    const elt = event.detail.elt, xhr = event.detail.xhr;
    const post = ((event.detail.requestConfig || {}).verb || "").toLowerCase() === "post";
    if (!post || !elt || !elt.closest || !xhr || !board.contains(elt)) return;
    const what = elt.closest("article.pj-card") || elt.closest("#pnj form");
    if (what) sent.set(xhr, what.id ? what.id : what);
  });
  // Once the answer is in place (its card changed in place, the line new in the bar).
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const xhr = event.detail.xhr, was = xhr && sent.get(xhr);
    if (!was) return;
    sent.delete(xhr);
    if (!event.detail.successful) return;
    const what = typeof was === "string" ? document.getElementById(was) : was;
    if (what) shown(board, what);
  });
}

/* The board's PNJ section. The add form is emptied once its PNJ are made (what was typed,
   left there, made copies of them at the next tap: "Bandido ×3" again), and the focus goes
   to its name for the next one; a refused add keeps what was typed, to be put right. The
   area blow counts the PNJ marked for it ("3 marcados") as their boxes are ticked, and
   clears the marks once a blow is recorded. */

// The add form's fields and what they hold when empty (the side stays as the DJ chose it).
const EMPTY = { name: "", count: "1", init: "" };

function emptied(form) {
  Object.entries(EMPTY).forEach(([name, value]) => {
    const field = form.elements.namedItem(name);
    if (field) field.value = value;
  });
  const together = form.elements.namedItem("together");
  if (together) together.checked = false;
  const name = form.elements.namedItem("name");
  if (name) name.focus({ preventScroll: true });
}

function count(board) {
  const shown = document.getElementById("area-count");
  if (!shown) return;
  const n = board.querySelectorAll("input.area-pick:checked").length;
  const words = n === 0 ? shown.dataset.none : n === 1 ? shown.dataset.one : shown.dataset.other;
  const text = (words || "").replace("{n}", String(n));
  if (shown.textContent !== text) shown.textContent = text;
}

export function pnjSection(board) {
  board.addEventListener("change", (event) => {
    if (event.target.matches && event.target.matches("input.area-pick")) count(board);
  });
  // After the answer is in place (board.js changes the list in place at its swap).
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const elt = event.detail.elt, xhr = event.detail.xhr;
    // A refusal (4xx) is swapped in too, as its reason: only a 2xx made something.
    if (!elt || !elt.matches || !xhr || xhr.status < 200 || xhr.status > 299) return;
    if (elt.matches("form.pnj-add")) {
      emptied(document.querySelector("form.pnj-add") || elt);
    } else if (elt.matches("#area-form")) {
      board.querySelectorAll("input.area-pick:checked").forEach((box) => { box.checked = false; });
    }
    count(board);
  });
  // A PNJ marked may leave the board (archived elsewhere), or the count's line come new.
  document.body.addEventListener("htmx:afterSettle", () => { count(board); });
  document.addEventListener("zodiac:change", () => { count(board); });
  count(board);
}

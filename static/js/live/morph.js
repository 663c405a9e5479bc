// Updating a part of the page in place: the hand-written DOM morph.
//
// A refreshed card differs from the one shown by a few words and marks: change those
// nodes only, instead of replacing the whole card. The page then lays out and paints
// only what changed, the focus stays where it was, and a <details> the user opened
// stays open. Children are matched in order by kind (tag, id and first class, htmx's
// passing marks aside; text with text): a node of the same kind in the same place is
// changed in place; one that appears is inserted, one that went is removed.

const kind = (node) =>
  node.nodeType === Node.ELEMENT_NODE
    ? `${node.nodeName}#${node.id}.${ownClass(node)}`
    : String(node.nodeType);

// An element's first class, htmx's marks left out: htmx marks what it has just swapped in
// (htmx-added, until it settles), and a part swapped in by an answer is still the same
// element when live news patches it a moment later.
function ownClass(node) {
  const first = node.classList[0] || "";
  if (!first.startsWith("htmx-")) return first;
  return [...node.classList].find((name) => !name.startsWith("htmx-")) || "";
}

// `old` (on the page) made like `fresh` (a rendering not on the page), keeping `old`'s
// nodes wherever their kind is still there.
export function patch(old, fresh) {
  if (kind(old) !== kind(fresh)) {
    old.replaceWith(fresh);
    return;
  }
  if (old.nodeType === Node.TEXT_NODE || old.nodeType === Node.COMMENT_NODE) {
    if (old.data !== fresh.data) old.data = fresh.data;
    return;
  }
  if (old.nodeType !== Node.ELEMENT_NODE || old.isEqualNode(fresh)) return;
  // An error line this page's own answers fill (data-own): live news leaves its words.
  if ("own" in old.dataset && "own" in fresh.dataset) return;
  for (const { name } of [...old.attributes]) {
    const usersChoice = name === "open" && old.nodeName === "DETAILS";
    if (!fresh.hasAttribute(name) && !usersChoice) old.removeAttribute(name);
  }
  for (const { name, value } of fresh.attributes) {
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  patchChildren(old, [...old.childNodes], [...fresh.childNodes]);
}

function patchChildren(parent, children, after) {
  // What this page added of its own (data-keep: a tap's warning) is neither matched nor
  // removed.
  const before = children.filter((node) => !(node.dataset && "keep" in node.dataset));
  // Where an element of this kind stands next in `list` from `from` (text: nowhere,
  // it is matched where it stands).
  const next = (list, from, node) =>
    node && node.nodeType === Node.ELEMENT_NODE
      ? list.findIndex((other, k) => k >= from && kind(other) === kind(node))
      : -1;
  let i = 0;
  after.forEach((node, j) => {
    const current = before[i];
    if (current && kind(current) === kind(node)) {
      patch(current, node);
      i += 1;
      return;
    }
    const later = next(before, i + 1, node);
    if (later !== -1 && next(after, j + 1, current) === -1) {
      before.slice(i, later).forEach((gone) => gone.remove()); // these went
      patch(before[later], node);
      i = later + 1;
    } else {
      // A new node. A new <option> arrives selected (the first of its own list was): out
      // of that list, it is unselected so that it does not take the user's choice here.
      node.remove();
      if (node.nodeName === "OPTION") node.selected = node.defaultSelected;
      parent.insertBefore(node, current || null);
    }
  });
  before.slice(i).forEach((gone) => gone.remove());
}

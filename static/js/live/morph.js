// Updating a part of the page in place: idiomorph (static/vendor/idiomorph-0.8.0/), the
// morph library of htmx, told what of the page is the user's.
//
// A refreshed card differs from the one shown by a few words and marks: change those
// nodes only, instead of replacing the whole card. The page then lays out and paints
// only what changed, the focus stays where it was, and a <details> the user opened
// stays open. What the user chose or typed stays too: the value, checked and selected
// attributes are changed as attributes only (the browser keeps a field the user
// changed), never pushed into the fields' live state. What this page added of its own
// (data-keep: a tap's warning) is never removed.

import { Idiomorph } from "../../vendor/idiomorph-0.8.0/idiomorph.esm.js";

const FIELD = new Set(["value", "checked", "selected"]); // attributes that hold the user's state
const ours = (node) => !!(node.dataset && "keep" in node.dataset);

const config = {
  morphStyle: "outerHTML",
  callbacks: {
    beforeNodeMorphed(old, fresh) {
      if (old.nodeType !== Node.ELEMENT_NODE || fresh.nodeType !== Node.ELEMENT_NODE) return true;
      if (old.isEqualNode(fresh)) return false; // nothing to do in there
      for (const name of FIELD) {
        const value = fresh.getAttribute(name);
        if (value === null) old.removeAttribute(name);
        else if (old.getAttribute(name) !== value) old.setAttribute(name, value);
      }
      return true;
    },
    beforeAttributeUpdated(name, element, how) {
      if (FIELD.has(name)) return false; // done above, as attributes only
      return !(name === "open" && element.nodeName === "DETAILS" && how === "remove");
    },
    beforeNodeRemoved: (node) => !ours(node),
    // A new <option> arrives selected (the first of its own list was): out of that list,
    // it is unselected so that it does not take the user's choice here.
    afterNodeAdded(node) {
      if (node.nodeName === "OPTION") node.selected = node.defaultSelected;
    },
  },
};

// `old` (on the page) made like `fresh` (a rendering not on the page).
export function patch(old, fresh) {
  Idiomorph.morph(old, fresh, config);
}

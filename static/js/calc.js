/* The modifier calculator, alive.

   Its PJ select follows the board's cards: a PJ or PNJ added, archived or
   renamed (by this page's taps or by live news from another tab) comes into the select, or
   leaves it, without a reload. The cards are the roster: each <article class="pj-card">
   has its pk (data-pj) and its name (#pj-<pk>-name); a PNJ's card is a .pnj-card and its
   option goes in the select's PNJ group. An option keeps its place; a new one goes at the
   end of its part. A chosen one that leaves takes the choice (and its result) with it.

   Its result follows its PJ's state: each card carries the key of what the calculator reads
   of its state (data-calc), and so does the result (with its PJ, data-pj). When the chosen
   card's key changes (a tap on this tab, live news of another tab's or of the player's
   roll), the result is asked for again, once per key. Each field asks as it changes (the
   situational number as it is typed); an answer is changed in place (live/morph.js), so
   the "against the cause?" answer just chosen keeps the focus. */

import { patch } from "./live/morph.js";

const select = document.querySelector('#calculator select[name="pj"]');
const body = document.querySelector(".board-body");
const form = select ? select.form : null;
const result = document.getElementById("calc-result");
let asked = ""; // "<pk>:<key>": the card state the result was last asked again for

function roster() {
  const found = { pj: [], pnj: [] };
  const cards = document.getElementById("cards");
  if (!cards) return null;
  cards.querySelectorAll("article.pj-card[data-pj]").forEach((card) => {
    const name = card.querySelector(`#pj-${card.dataset.pj}-name`);
    const who = { pk: card.dataset.pj, name: name ? name.textContent.trim() : "?" };
    found[card.classList.contains("pnj-card") ? "pnj" : "pj"].push(who);
  });
  return found;
}

// `parent`'s options (those of `list`'s pks) as `list` says, in their places.
function follow(parent, list, skip) {
  const wanted = new Map(list.map((who) => [who.pk, who.name]));
  [...parent.children].forEach((option) => {
    if (option.nodeName !== "OPTION" || option === skip) return;
    if (!wanted.has(option.value)) { option.remove(); return; }
    if (option.textContent !== wanted.get(option.value)) option.textContent = wanted.get(option.value);
    wanted.delete(option.value);
  });
  wanted.forEach((name, pk) => {
    const option = document.createElement("option");
    option.value = pk;
    option.textContent = name;
    parent.append(option);
  });
}

function update() {
  const found = roster();
  if (!found) return;
  const chosen = select.value;
  let group = select.querySelector("optgroup");
  const none = select.querySelector('option[value=""]');
  follow(select, found.pj, none);
  if (found.pnj.length && !group) {
    group = document.createElement("optgroup");
    group.label = select.dataset.pnjLabel || "PNJ";
    select.append(group);
  }
  if (group) follow(group, found.pnj, null);
  if (group && !found.pnj.length) group.remove();
  else if (group && select.lastElementChild !== group) select.append(group); // after the PJ
  if (chosen && select.value !== chosen) {
    select.value = "";
    select.dispatchEvent(new Event("change", { bubbles: true })); // its result goes too
  }
}

// The result asked for again when the chosen card's state is not the one it read.
function followState() {
  const pk = select.value;
  const card = pk && document.getElementById(`pj-${pk}`);
  const read = result && result.querySelector("output[data-calc]");
  if (!card || !card.dataset.calc || !read || read.dataset.pj !== pk) return;
  const key = `${pk}:${card.dataset.calc}`;
  if (card.dataset.calc === read.dataset.calc || key === asked) return;
  asked = key;
  window.htmx.trigger(form, "zodiac-recalc");
}

if (select && body) {
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      update();
      if (form && window.htmx) followState();
    });
  }).observe(body, {
    childList: true, subtree: true, characterData: true,
    attributes: true, attributeFilter: ["data-calc"],
  });
}

if (form && result && window.htmx) {
  form.addEventListener("input", (event) => {
    if (event.target.name === "situational") window.htmx.trigger(form, "zodiac-recalc");
  });
  form.addEventListener("htmx:beforeSwap", (event) => {
    if (event.detail.target !== result || !event.detail.shouldSwap) return;
    event.detail.shouldSwap = false;
    const fresh = result.cloneNode(false);
    fresh.innerHTML = event.detail.serverResponse;
    patch(result, fresh);
  });
}

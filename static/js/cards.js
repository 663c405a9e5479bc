/* The board's list of cards. A change of every card can change the list itself: PNJ made
   into the fight or archived by its end in another tab, or a fight begun or ended (the PNJ
   form joins the fight or not). The list is to be asked anew when the cards a change
   carried (`html`) are not those on the page, or the PNJ form is not of the fight shown. */

const isCard = (el) => { return /^pj-\d+$/.test(el.id); };

export function listChanged(board, html) {
  const answer = document.createElement("template");
  answer.innerHTML = html;
  const carried = [...answer.content.children].filter(isCard).map((el) => { return el.id; }).sort();
  const shown = [...board.querySelectorAll("article.pj-card[id]")].filter(isCard).map((el) => { return el.id; }).sort();
  const form = board.querySelector(".pnj-add");
  const fightOn = Boolean(document.querySelector("#fight .fight-head"));
  return carried.join() !== shown.join() || Boolean(form && (form.dataset.fight === "1") !== fightOn);
}

// The fight's order page (templates/campaign/fight.html) follows the fight live. When the
// live channel says the campaign changed, the page asks for itself again, saying the
// version of the fight it shows (?visto=): the server answers with the fight as it is now
// and a note of what changed. A page holding no changes of its own takes that answer
// whole; one holding the DJ's changes (a move made, a field typed in: ?cambios=1) keeps
// them and takes only the fight's state and the note, which says what changed, how the
// fight stands and that saving this page is refused. An ES module: importing live/ starts the live channel.
import "./live/index.js";

(() => {
  const section = document.getElementById("fight-setup");
  if (!section) return;
  const form = () => section.querySelector("form[data-fight]");
  let typed = false; // a field typed in or changed since the page was drawn
  section.addEventListener("input", () => { typed = true; });
  section.addEventListener("change", () => { typed = true; });
  const edited = () => typed || form().dataset.edited === "1";

  let asking = false;
  let again = false;

  async function look() {
    if (asking) {
      again = true; // one more look once this one is answered
      return;
    }
    asking = true;
    try {
      const seen = form().dataset.fight;
      const keep = edited();
      const url = new URL(form().action);
      url.searchParams.set("visto", seen);
      if (keep) url.searchParams.set("cambios", "1");
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) return;
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("fight-setup");
      if (!fresh || form().dataset.fight !== seen) return;
      if (keep) {
        // The fight's state and the note of what changed; the rows, the DJ's, stay.
        for (const id of ["fight-state", "fight-changed"]) {
          section.querySelector(`#${id}`).replaceWith(fresh.querySelector(`#${id}`));
        }
      } else if (edited()) {
        again = true; // typed in meanwhile: ask again, keeping what was typed
      } else if (fresh.querySelector("form[data-fight]").dataset.fight !== seen) {
        section.replaceChildren(...fresh.childNodes);
      }
    } finally {
      asking = false;
      if (again) {
        again = false;
        look();
      }
    }
  }

  document.addEventListener("zodiac:change", look);
})();

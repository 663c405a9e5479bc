/* The party Descanso's watches by turns, in "Otro tiempo…": refused, the panel (closed when
   it was sent) opens again on its lines, each with its reason, and the focus goes to the
   first line refused (or the first field, for a reason of them all). */

document.body.addEventListener("htmx:afterSwap", (event) => {
  const target = event.detail.target;
  if (!target || target.id !== "watches") return;
  const refused = target.querySelector('[aria-invalid="true"]');
  const error = target.querySelector("#watches-error");
  if (!refused && !(error && error.textContent.trim())) return;
  const menu = target.closest("details.menu");
  if (menu) menu.open = true;
  const first = refused || target.querySelector("select, input");
  if (first) first.focus();
});

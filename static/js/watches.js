/* The party Descanso's watches by turns, in "Otro tiempo…" (folded under its own summary,
   so the panel's buttons stay in sight on a phone): refused, the panel (closed when it was
   sent) and its fold open again on its lines, each with its reason, and the focus goes to the
   first line refused (or the first field, for a reason of them all). */

document.body.addEventListener("htmx:afterSwap", (event) => {
  const target = event.detail.target;
  if (!target || target.id !== "watches") return;
  const refused = target.querySelector('[aria-invalid="true"]');
  const error = target.querySelector("#watches-error");
  if (!refused && !(error && error.textContent.trim())) return;
  for (const shut of [target.closest("details.watches-turns"), target.closest("details.menu")]) {
    if (shut) shut.open = true;
  }
  const first = refused || target.querySelector("select, input");
  if (first) first.focus();
});

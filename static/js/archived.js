// The page of a player's archived PJ (templates/campaign/sheet_archived.html): when the
// live channel says that PJ changed (it was restored), the sheet loads again. An ES
// module: importing live/ starts the live channel.
import "./live/index.js";

(() => {
  const page = document.getElementById("archived");
  if (!page) return;
  const pk = String(page.dataset.pj);
  document.addEventListener("zodiac:change", (event) => {
    const detail = event.detail || {};
    const mine = (detail.pj || []).map(String).includes(pk);
    const missed = detail.all && !detail.kinds; // news this page may have missed
    if (mine || missed || (detail.kinds || []).includes("character")) window.location.reload();
  });
})();

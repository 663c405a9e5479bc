// A history page (templates/campaign/history.html, session.html) follows the live channel:
// at each piece of news of its campaign it asks its own address again, as an htmx request,
// and the view answers only the page's live parts (each by its id: the list of sessions,
// the session's head, the window of events) as this viewer may see them: a player's are
// filtered exactly as the page was. Those parts change in place (live/morph.js); the
// session's picture, once drawn, is drawn anew. An ES module: importing live/ starts it.
//
// One request at a time: news that arrives meanwhile asks once more when it is answered,
// so a burst of taps costs two requests, not one each; a hidden tab asks when shown again.
import { parts, patch } from "./live/index.js";

(() => {
  if (!document.getElementById("live") || !document.getElementById("history-events")) return;
  let asking = false;
  let again = false;
  let stale = false;

  document.addEventListener("zodiac:change", ask);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && stale) ask();
  });

  function ask() {
    if (document.hidden) {
      stale = true;
      return;
    }
    if (asking) {
      again = true;
      return;
    }
    asking = true;
    stale = false;
    again = false;
    fetch(window.location.href, {
      headers: { "HX-Request": "true" },
      credentials: "same-origin",
      cache: "no-store",
    })
      .then((response) => {
        // This page is no longer the viewer's to see (a player removed): show what it is now.
        if (response.status === 404 || response.status === 403) window.location.reload();
        return response.ok ? response.text() : "";
      })
      .then((html) => {
        if (html) show(html);
      })
      .catch(() => { /* the live status line says when the server is away */ })
      .finally(() => {
        asking = false;
        if (again) ask();
      });
  }

  function show(html) {
    parts(html).forEach(([old, part]) => {
      if (old.isEqualNode(part)) return;
      patch(old, part);
      if (window.htmx) htmx.process(old);
    });
    const picture = document.querySelector(".timeline-svg");
    if (picture && picture.querySelector("svg") && window.htmx) {
      htmx.ajax("GET", picture.getAttribute("hx-get"), { target: picture, swap: "innerHTML" });
    }
  }
})();

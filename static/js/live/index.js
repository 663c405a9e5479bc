// The live channel (campaign/live/): tells the page which PJ cards changed, usually with
// those cards already rendered for this kind of page. This module is the one a page's
// script imports (board.js, sheet.js, archived.js); importing it starts the channel on a
// page that has the live element.
//
// Needs <div id="live" data-stream data-poll data-campaign data-cursor data-view data-user
// data-reconnecting data-unanswered> (templates/campaign/_live.html) holding #live-status,
// a role="status" element shown while the stream is down (and gone once it is heard: a
// `zodiac:alive` event on document each time). Every change of this page's
// campaign becomes a `zodiac:change` event on document, detail {cursor, pj, all, kinds,
// parts}: `parts` ({"card:12": html, ...}) when the stream carried this kind of page's
// rendering, else the page fetches its own.
//
// The pieces:
// - stream.js: the transport, an EventSource on the stream or polling;
// - tabs.js: one stream per browser, shared by its tabs (the protocol is written there);
// - answers.js: the page's own answers, and the news they make old or keep waiting;
// - taps.js: each tap keyed, dated on the server's clock, given up on; words about a tap;
// - parts.js: this page's rendering of a change (carried, or fetched); morph.js: a part
//   changed in place.
//
// What a page's script uses, and nothing else: given, fetchParts, parts, patch (a part's
// rendering, applied), news (ask for news, e.g. {all: true}), tell (words about a tap).

import { news as pageNews, watchAnswers } from "./answers.js";
import { patch } from "./morph.js";
import { fetchParts, given, parts } from "./parts.js";
import { transport } from "./stream.js";
import { shareStream } from "./tabs.js";
import { onlyTabSays, setServerOffset, tell, watchTaps } from "./taps.js";

const live = document.getElementById("live");

export { fetchParts, given, parts, patch, tell };

// News for this page, as if the stream had brought it (nothing on a page without the
// live channel).
export function news(detail) {
  if (live) pageNews(detail);
}

if (live) follow(live);

function follow(live) {
  const status = document.getElementById("live-status");
  const reconnecting = live.dataset.reconnecting || (status && status.textContent) || "";
  const me = { campaign: Number(live.dataset.campaign), view: live.dataset.view || "" };
  const user = live.dataset.user || "";
  let cursor = Number(live.dataset.cursor) || 0;

  // data-state on #live says how the page follows changes: open, reconnecting or polling.
  function showDown(state) {
    const down = state === "reconnecting";
    live.dataset.state = state;
    if (!status) return;
    status.textContent = down ? reconnecting : "";
    status.hidden = !down;
  }
  // The stream was heard (news or the server's clock, for any campaign): it is up, whatever
  // was said before. A tab hears the stream's state from the tab that holds it, and a word
  // from a former holder may come late; news heard is the last word. `zodiac:alive` tells
  // the page's script (the sheet's offline marker).
  function alive() {
    if (live.dataset.state === "reconnecting") showDown("open");
    document.dispatchEvent(new CustomEvent("zodiac:alive"));
  }

  // A message of the stream (or of polling), for any campaign of this browser's pages.
  // #live's data-cursor says the latest cursor this page has heard of.
  function receive(message) {
    if (message.campaign !== me.campaign) return;
    heard(message);
  }
  function heard(message) {
    if (message.reset) {
      // The database was restored to an earlier cursor: everything anew from there.
      cursor = message.cursor;
      live.dataset.cursor = String(cursor);
      pageNews({ cursor: message.cursor, pj: [], all: true });
      return;
    }
    if (message.cursor <= cursor) return;
    const missed = message.after > cursor; // this page was not there for some news
    cursor = message.cursor;
    live.dataset.cursor = String(cursor);
    if (missed) {
      pageNews({ cursor: message.cursor, pj: [], all: true });
      return;
    }
    const parts = message.view === me.view ? message.parts : undefined;
    pageNews({ cursor: message.cursor, pj: message.pj, all: message.all, kinds: message.kinds, foes: message.foes, parts });
  }

  watchAnswers();
  watchTaps(live);

  const gone = (campaigns) => {
    // This page's campaign is no longer this user's to see, or not as it was: show what
    // the server says now.
    if (campaigns.includes(me.campaign)) window.location.reload();
  };
  // What this user may see of a campaign changed after this page was rendered (a player
  // removed, the party option): the page loads anew.
  const access = (latest) => {
    if (latest[String(me.campaign)] > cursor) window.location.reload();
  };

  // -- one stream for the whole browser (tabs.js), else this page's own -----------------
  const shared = user && window.EventSource && window.BroadcastChannel && navigator.locks;
  if (!shared) {
    const alone = {
      message: (message) => {
        alive();
        receive(message);
      },
      state: showDown,
      clock: (offset) => {
        alive();
        setServerOffset(offset);
      },
      gone,
      changedAccess: gone,
      access,
    };
    transport(live.dataset, new Map([[me.campaign, cursor]]), alone);
    return;
  }
  onlyTabSays(shareStream({
    live,
    user,
    campaign: me.campaign,
    cursor: () => cursor,
    receive,
    showDown,
    alive,
    gone,
    access,
    news: pageNews,
    open: (follow, on) => transport(live.dataset, follow, on),
  }));
}

// The live channel (campaign/live/): tells the page which PJ cards changed, usually with
// those cards already rendered for this kind of page.
//
// Needs <div id="live" data-stream data-poll data-campaign data-cursor data-view data-user
// data-reconnecting data-unanswered> (templates/campaign/_live.html) holding #live-status,
// a role="status" element shown while the stream is down. Every change of this page's
// campaign becomes a `zodiac:change` event on document, detail {cursor, pj, all, parts}:
// `parts` ({"card:12": html, ...}) when the stream carried this kind of page's rendering,
// else the page fetches its own.
//
// One stream per browser: the tabs of one user share it. One tab holds it under a Web
// Lock and relays each message to the others over a BroadcastChannel; when that tab closes
// or is frozen, the next one in the lock's queue takes over from the last change it saw.
// Without those features a page holds its own stream; without EventSource, it polls.
//
// The page's own actions answer with the cards they changed, already rendered: each answer
// says the cursor it reflects (X-Change-Cursor) and the cards it holds (X-Change-Pj: ids,
// or "all"), and the news of those cards up to that cursor is no news here. While one of
// the page's own actions is on its way, news waits for its answer (the answer may be that
// news), and a refresh that lands meanwhile is asked again after it (fetchParts).
//
// Taps: each htmx POST is dated on the server's clock (X-Zodiac-Sent; the stream tells
// the clock) and abandoned after TAP_GIVES_UP_MS without an answer; the server refuses a
// tap past its deadline (campaign/deadline.py), so an abandoned tap is never applied late.
(() => {
  "use strict";
  const live = document.getElementById("live");
  if (!live) return;
  const status = document.getElementById("live-status");
  const reconnecting = live.dataset.reconnecting || (status && status.textContent) || "";
  const me = { campaign: Number(live.dataset.campaign), view: live.dataset.view || "" };
  const user = live.dataset.user || "";
  const POLL_MS = 2000;
  const STREAM_TRIES = 3; // refused streams in a row before polling instead
  const RETRY_STREAM_MS = 60000; // while polling, try the stream again this often
  const TAP_GIVES_UP_MS = 8000; // campaign/deadline.py PAGE_GIVES_UP
  // News waits this long, at most, for the answer of one of the page's own actions: an
  // answer that takes longer (a bad network) does not keep the other cards stale.
  const HOLD_MS = 1500;

  let cursor = Number(live.dataset.cursor) || 0;
  let serverOffset = null; // the server's clock minus this page's, in ms

  // data-state on #live says how the page follows changes: open, reconnecting or polling.
  function showDown(state) {
    const down = state === "reconnecting";
    live.dataset.state = state;
    if (!status) return;
    status.textContent = down ? reconnecting : "";
    status.hidden = !down;
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
      news({ cursor: message.cursor, pj: [], all: true });
      return;
    }
    if (message.cursor <= cursor) return;
    const missed = message.after > cursor; // this page was not there for some news
    cursor = message.cursor;
    live.dataset.cursor = String(cursor);
    if (missed) {
      news({ cursor: message.cursor, pj: [], all: true });
      return;
    }
    const parts = message.view === me.view ? message.parts : undefined;
    news({ cursor: message.cursor, pj: message.pj, all: message.all, kinds: message.kinds, parts });
  }

  // -- the page's own answers ---------------------------------------------------------
  let posting = 0;
  let postingSince = 0;
  let held = [];
  let holdTimer = null;
  let freshAll = 0; // every card is as new as this cursor
  const freshCards = new Map(); // PJ id -> the cursor its card is as new as

  function news(detail) {
    if (posting && Date.now() - postingSince < HOLD_MS) {
      held.push(detail);
      if (!holdTimer) holdTimer = window.setTimeout(release, postingSince + HOLD_MS - Date.now());
      return;
    }
    const at = detail.cursor || Infinity; // no cursor: the page asks for everything anew
    if (at <= freshAll) return;
    if (!detail.all) {
      const pj = (detail.pj || []).filter((id) => !(freshCards.get(String(id)) >= at));
      if (!pj.length) return;
      detail = { ...detail, pj };
    }
    document.dispatchEvent(new CustomEvent("zodiac:change", { detail }));
  }

  // Several pieces of news as one: one refresh after the wait, not one each (fetched: the
  // parts each carried are of different moments).
  function merged(details) {
    const dated = details.every((d) => d.cursor);
    return {
      cursor: dated ? Math.max(...details.map((d) => d.cursor)) : undefined,
      pj: [...new Set(details.flatMap((d) => d.pj || []))],
      all: details.some((d) => d.all),
      kinds: [...new Set(details.flatMap((d) => d.kinds || []))],
    };
  }

  // Counted from the send to the end of the exchange, whatever its end (answer, error,
  // abort): a request a listener cancels before it is sent is never counted.
  document.body.addEventListener("htmx:beforeSend", (event) => {
    const xhr = event.detail.xhr;
    if ((event.detail.requestConfig || {}).verb !== "post" || !xhr) return;
    if (!posting) postingSince = Date.now();
    posting += 1;
    xhr.addEventListener("loadend", () => {
      posting = Math.max(0, posting - 1);
      if (!posting) release();
    });
  });
  // The held news goes out: the page's own answer came, or took too long.
  function release() {
    window.clearTimeout(holdTimer);
    holdTimer = null;
    const waiting = held;
    held = [];
    if (waiting.length === 1) news(waiting[0]);
    else if (waiting.length) news(merged(waiting));
  }
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const xhr = event.detail.xhr;
    if (xhr && xhr.status === 409 && xhr.getResponseHeader("X-Zodiac-Refused") === "late") {
      tell(event.detail.elt, xhr.responseText);
      return;
    }
    const at = Number(xhr && xhr.getResponseHeader("X-Change-Cursor")) || 0;
    const covers = (xhr && xhr.getResponseHeader("X-Change-Pj")) || "";
    if (!at) return;
    if (covers === "all") {
      freshAll = Math.max(freshAll, at);
      return;
    }
    for (const id of covers.split(" ").filter(Boolean)) {
      freshCards.set(id, Math.max(freshCards.get(id) || 0, at));
    }
  });

  // -- taps: keyed, dated on the server's clock, abandoned when unanswered ------------
  const newKey = () =>
    window.crypto && crypto.randomUUID
      ? crypto.randomUUID().replace(/-/g, "")
      : String(Date.now()) + Math.random().toString(16).slice(2);

  htmxConfig();
  function htmxConfig() {
    if (window.htmx) htmx.config.timeout = TAP_GIVES_UP_MS;
  }

  document.body.addEventListener("htmx:configRequest", (event) => {
    const detail = event.detail;
    if (detail.verb !== "post") return;
    // Forms from a live rendering carry no idempotency key: each form element gets one,
    // kept until the element is replaced, so a double tap still records once.
    const form = detail.elt.closest ? detail.elt.closest("form") : null;
    if (form && !detail.parameters.key) {
      if (!form.dataset.key) form.dataset.key = newKey();
      detail.parameters.key = form.dataset.key;
    }
    if (serverOffset !== null) {
      detail.headers["X-Zodiac-Sent"] = String(Math.round(Date.now() + serverOffset));
    }
  });
  document.body.addEventListener("htmx:timeout", (event) => {
    const verb = ((event.detail.requestConfig || {}).verb || "").toLowerCase();
    if (verb === "post") tell(event.detail.elt, live.dataset.unanswered || "");
  });

  // Words about a tap, next to it: on its card, else in the nearest error line, else after it.
  // On a card they stay while live news changes it (patch leaves data-keep alone), until
  // the card is answered anew.
  function tell(elt, text) {
    const card = elt && elt.closest ? elt.closest("article.pj-card") : null;
    let slot = card && card.querySelector(".card-error");
    if (card && !slot) {
      slot = document.createElement("p");
      slot.className = "card-error";
      slot.setAttribute("role", "alert");
      slot.dataset.keep = "";
      const head = card.querySelector(".pj-head");
      if (head) head.after(slot);
      else card.prepend(slot);
    }
    // Off the cards: the error line of the nearest part of the page that has one (the
    // clock bar, "Otro tiempo…", the void form).
    let zone = !slot && elt && elt.closest ? elt : null;
    while (zone && !slot) {
      slot = zone.querySelector(":scope > .control-error");
      zone = zone.parentElement;
    }
    if (!slot && elt && elt.closest) {
      slot = document.createElement("p");
      slot.className = "card-error";
      slot.setAttribute("role", "alert");
      (elt.closest("form") || elt).after(slot);
    }
    if (slot) slot.textContent = text;
  }

  // -- updating a part in place ------------------------------------------------------
  // A refreshed card differs from the one shown by a few words and marks: change those
  // nodes only, instead of replacing the whole card. The page then lays out and paints
  // only what changed, the focus stays where it was, and a <details> the user opened
  // stays open. Children are matched in order by kind (tag, id and first class; text
  // with text): a node of the same kind in the same place is changed in place; one that
  // appears is inserted, one that went is removed.
  const kind = (node) =>
    node.nodeType === Node.ELEMENT_NODE
      ? `${node.nodeName}#${node.id}.${node.classList[0] || ""}`
      : String(node.nodeType);

  function patch(old, fresh) {
    if (kind(old) !== kind(fresh)) {
      old.replaceWith(fresh);
      return;
    }
    if (old.nodeType === Node.TEXT_NODE || old.nodeType === Node.COMMENT_NODE) {
      if (old.data !== fresh.data) old.data = fresh.data;
      return;
    }
    if (old.nodeType !== Node.ELEMENT_NODE || old.isEqualNode(fresh)) return;
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

  // -- this page's rendering of a change -----------------------------------------------
  // The parts `names` of a change, joined, when the stream carried every one; else null
  // (the page fetches its own).
  function given(detail, names) {
    const carried = detail.parts;
    if (!carried || !names.every((name) => typeof carried[name] === "string")) return null;
    return names.map((name) => carried[name]).join("");
  }

  // GET `url` for the PJ named in `detail` (or all): {status, html}, or null when one of
  // the page's own actions went out meanwhile (the answer may be older than that action's:
  // the news is asked again once it is answered).
  async function fetchParts(url, detail) {
    const query = detail.all ? "all=1" : (detail.pj || []).map((id) => `pj=${id}`).join("&");
    const response = await fetch(`${url}?${query}`, {
      headers: { "HX-Request": "true" },
      credentials: "same-origin",
      cache: "no-store",
    });
    const html = response.ok ? await response.text() : "";
    if (posting && Date.now() - postingSince < HOLD_MS) {
      news(detail);
      return null;
    }
    return { status: response.status, html };
  }

  // Each part of a refresh (an element with the id of what it stands for) with the
  // element on the page it stands for; parts with nothing to stand for are left out.
  function parts(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return [...template.content.children]
      .map((part) => [part.id && document.getElementById(part.id), part])
      .filter(([old]) => old);
  }

  window.zodiacLive = { fetchParts, given, parts, patch, news, tell };

  // -- the transport: a stream, or polling, for the campaigns `follow` names ---------
  // follow: Map of campaign id -> the cursor to start after; it follows every message.
  function transport(follow, on) {
    let source = null;
    let timer = null;
    let refused = 0;
    let stopped = false;
    const since = () => [...follow].map(([campaign, at]) => `${campaign}:${at}`).join(",");
    const clock = (data) => {
      if (data && data.now) on.clock(data.now - Date.now());
    };
    const deliver = (message) => {
      follow.set(message.campaign, message.cursor);
      on.message(message);
    };

    function stream() {
      if (stopped) return;
      const url = new URL(live.dataset.stream, window.location.href);
      url.searchParams.set("since", since());
      source = new EventSource(url);
      source.addEventListener("open", () => {
        refused = 0;
        on.state("open");
      });
      source.addEventListener("hello", (event) => {
        const data = JSON.parse(event.data);
        clock(data);
        if (data.gone.length) on.gone(data.gone);
        on.access(data.access || {});
      });
      source.addEventListener("ping", (event) => clock(JSON.parse(event.data)));
      source.addEventListener("change", (event) => {
        const data = JSON.parse(event.data);
        clock(data);
        deliver(data);
      });
      // What this browser's user may see changed (a session, a membership, an option):
      // the pages of those campaigns load anew; the stream opens again from here.
      source.addEventListener("reopen", (event) => {
        source.close();
        on.changedAccess(JSON.parse(event.data).campaigns || []);
        stream();
      });
      // A server that cannot stream (runserver): poll at once.
      source.addEventListener("poll", (event) => {
        clock(JSON.parse(event.data));
        source.close();
        poll(Date.now());
      });
      source.addEventListener("error", () => {
        if (stopped) return;
        on.state("reconnecting");
        // CONNECTING: the browser retries by itself, sending Last-Event-ID.
        if (source.readyState !== EventSource.CLOSED) return;
        // CLOSED: the server or a proxy refused the stream; reconnect by hand, or poll.
        source.close();
        refused += 1;
        if (refused < STREAM_TRIES) timer = window.setTimeout(stream, 1000 * refused);
        else poll(Date.now());
      });
    }

    async function poll(started) {
      if (stopped) return;
      if (window.EventSource && Date.now() - started > RETRY_STREAM_MS) {
        refused = STREAM_TRIES - 1; // one refusal more and we are back to polling
        stream();
        return;
      }
      try {
        const url = new URL(live.dataset.poll, window.location.href);
        url.searchParams.set("since", since());
        const response = await fetch(url, {
          headers: { Accept: "application/json" },
          cache: "no-store",
          credentials: "same-origin",
        });
        if (response.status === 200) {
          const data = await response.json();
          clock(data);
          if (data.gone.length) on.gone(data.gone);
          data.changes.forEach(deliver);
        }
        const answered = response.status === 200 || response.status === 204;
        if (!stopped) on.state(answered ? "polling" : "reconnecting");
      } catch {
        if (!stopped) on.state("reconnecting");
      }
      if (!stopped) timer = window.setTimeout(() => poll(started), POLL_MS);
    }

    if (window.EventSource) stream();
    else poll(Date.now());
    return {
      follow,
      stop() {
        stopped = true;
        window.clearTimeout(timer);
        if (source) source.close();
      },
    };
  }

  const gone = (campaigns) => {
    // This page's campaign is no longer this user's to see, or not as it was: show what
    // the server says now.
    if (campaigns.includes(me.campaign)) window.location.reload();
  };
  const setClock = (offset) => {
    serverOffset = offset;
  };
  // What this user may see of a campaign changed after this page was rendered (a player
  // removed, the party option): the page loads anew.
  const access = (latest) => {
    if (latest[String(me.campaign)] > cursor) window.location.reload();
  };

  // -- one stream for the whole browser ------------------------------------------------
  const shared = user && window.EventSource && window.BroadcastChannel && navigator.locks;
  if (!shared) {
    const alone = {
      message: receive,
      state: showDown,
      clock: setClock,
      gone,
      changedAccess: gone,
      access,
    };
    transport(new Map([[me.campaign, cursor]]), alone);
    return;
  }

  const name = `zodiac-live-${user}`;
  const channel = new BroadcastChannel(name);
  const tab = newKey();
  const tabs = new Map([[tab, { campaign: me.campaign, cursor }]]); // every page of this browser
  let leading = null; // the transport this tab holds for the browser
  let stepDown = null;
  let state = "connecting";
  const say = (data) => channel.postMessage(data);

  // Every tab's news reaches every tab: each knows where every page is.
  function advance(message) {
    for (const page of tabs.values()) {
      if (page.campaign === message.campaign) page.cursor = Math.max(page.cursor, message.cursor);
    }
  }
  function hello() {
    tabs.get(tab).cursor = cursor;
    say({ type: "hello", tab, campaign: me.campaign, cursor });
  }

  channel.addEventListener("message", ({ data }) => {
    if (data.type === "change") {
      advance(data.message);
      receive(data.message);
    } else if (data.type === "hello") {
      tabs.set(data.tab, { campaign: data.campaign, cursor: data.cursor });
      if (leading) join(data.campaign, data.cursor);
    } else if (data.type === "bye") {
      tabs.delete(data.tab);
    } else if (data.type === "state") {
      showDown(data.state);
      if (data.offset !== null) serverOffset = data.offset;
      // The stream got news this page did not hear (it opened just before): ask anew.
      const at = data.cursors && data.cursors[me.campaign];
      if (at > cursor) receive({ campaign: me.campaign, after: at, cursor: at });
    } else if (data.type === "clock") {
      serverOffset = data.offset;
    } else if (data.type === "gone" || data.type === "access") {
      gone(data.campaigns);
    } else if (data.type === "latest") {
      access(data.latest);
    } else if (data.type === "leader") {
      hello();
    }
  });

  function tellState() {
    const cursors = leading ? Object.fromEntries(leading.follow) : null;
    say({ type: "state", state, offset: serverOffset, cursors });
  }

  // A page of a campaign the stream does not follow yet: open it again with that one too.
  function join(campaign, at) {
    if (!leading.follow.has(campaign)) {
      const follow = new Map(leading.follow).set(campaign, at);
      leading.stop();
      leading = transport(follow, relay);
    }
    tellState();
  }

  const relay = {
    message(message) {
      say({ type: "change", message });
      advance(message);
      receive(message);
    },
    state(now) {
      state = now;
      showDown(now);
      tellState();
    },
    clock(offset) {
      serverOffset = offset;
      say({ type: "clock", offset });
    },
    gone(campaigns) {
      say({ type: "gone", campaigns });
      gone(campaigns);
    },
    changedAccess(campaigns) {
      say({ type: "access", campaigns });
      gone(campaigns);
    },
    access(latest) {
      say({ type: "latest", latest });
      access(latest);
    },
  };

  function lead() {
    return new Promise((release) => {
      // From where every page is: the stream starts at the oldest cursor of each campaign.
      tabs.get(tab).cursor = cursor;
      const follow = new Map();
      for (const page of tabs.values()) {
        const at = follow.has(page.campaign) ? follow.get(page.campaign) : Infinity;
        follow.set(page.campaign, Math.min(at, page.cursor));
      }
      leading = transport(follow, relay);
      live.dataset.role = "leader";
      say({ type: "leader" });
      stepDown = () => {
        leading.stop();
        leading = null;
        stepDown = null;
        delete live.dataset.role;
        release();
      };
    });
  }

  let queued = false; // this tab waits in the lock's queue
  function queue() {
    if (queued) return;
    queued = true;
    navigator.locks.request(name, () => {
      queued = false;
      return lead();
    });
  }

  hello();
  queue();
  window.addEventListener("pagehide", () => say({ type: "bye", tab }));
  // A frozen tab hears nothing: it hands the stream on, and asks anew when it wakes.
  document.addEventListener("freeze", () => {
    if (stepDown) stepDown();
  });
  document.addEventListener("resume", () => {
    hello();
    if (!stepDown) queue();
    news({ cursor: undefined, pj: [], all: true });
  });
})();

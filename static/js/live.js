// The live channel (campaign/live.py): tells the page which PJ cards changed.
//
// Needs <div id="live" data-stream data-poll data-cursor data-reconnecting> (see
// templates/campaign/_live.html) holding #live-status, a role="status" element shown while
// the stream is down. Every change becomes a `zodiac:change` event on document, detail
// {cursor, pj, all}; the page then fetches its own rendering of what changed.
//
// The page's own actions answer with the cards they changed, already rendered: each answer
// says the cursor it reflects (X-Change-Cursor) and the cards it holds (X-Change-Pj: ids,
// or "all"), and the news of those cards up to that cursor is no news here. While one of
// the page's own actions is on its way, news waits for its answer (the answer may be that
// news), and a refresh that lands meanwhile is asked again after it (fetchParts).
(() => {
  "use strict";
  const live = document.getElementById("live");
  if (!live) return;
  const status = document.getElementById("live-status");
  const reconnecting = live.dataset.reconnecting || (status && status.textContent) || "";
  const POLL_MS = 2000;
  const STREAM_TRIES = 3; // refused streams in a row before polling instead
  const RETRY_STREAM_MS = 60000; // while polling, try the stream again this often

  let cursor = Number(live.dataset.cursor) || 0;
  let refused = 0;

  // data-state on #live says how the page follows changes: open, reconnecting or polling.
  function showDown(down, state = down ? "reconnecting" : "open") {
    live.dataset.state = state;
    if (!status) return;
    status.textContent = down ? reconnecting : "";
    status.hidden = !down;
  }

  function deliver(data) {
    cursor = data.cursor;
    news({ cursor: data.cursor, pj: data.pj, all: data.all });
  }

  // -- the page's own answers ---------------------------------------------------------
  let posting = 0;
  let held = [];
  let freshAll = 0; // every card is as new as this cursor
  const freshCards = new Map(); // PJ id -> the cursor its card is as new as

  function news(detail) {
    if (posting) {
      held.push(detail);
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

  // Several pieces of news as one: one refresh after the wait, not one each.
  function merged(details) {
    const dated = details.every((d) => d.cursor);
    return {
      cursor: dated ? Math.max(...details.map((d) => d.cursor)) : undefined,
      pj: [...new Set(details.flatMap((d) => d.pj || []))],
      all: details.some((d) => d.all),
    };
  }

  // Counted from the send to the end of the exchange, whatever its end (answer, error,
  // abort): a request a listener cancels before it is sent is never counted.
  document.body.addEventListener("htmx:beforeSend", (event) => {
    const xhr = event.detail.xhr;
    if ((event.detail.requestConfig || {}).verb !== "post" || !xhr) return;
    posting += 1;
    xhr.addEventListener("loadend", () => {
      posting = Math.max(0, posting - 1);
      if (posting) return;
      const waiting = held;
      held = [];
      if (waiting.length) news(merged(waiting));
    });
  });
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const xhr = event.detail.xhr;
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

  // -- updating a part in place ------------------------------------------------------
  // A refreshed card differs from the one shown by a few words and marks: change those
  // nodes only, instead of replacing the whole card. The page then lays out and paints
  // only what changed (twenty pages at a table do it at once), the focus stays where it
  // was, and a <details> the user opened stays open. Children are matched in order by
  // kind (tag, id and first class; text with text): a node of the same kind in the same
  // place is changed in place; one that appears is inserted, one that went is removed.
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

  function patchChildren(parent, before, after) {
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

  // -- asking for this page's rendering of a change ----------------------------------
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
    if (posting) {
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

  window.zodiacLive = {
    fetchParts,
    parts,
    patch,
    news,
  };

  function since(base) {
    const url = new URL(base, window.location.href);
    url.searchParams.set("since", String(cursor));
    return url;
  }

  function stream() {
    const source = new EventSource(since(live.dataset.stream));
    source.addEventListener("open", () => {
      refused = 0;
      showDown(false);
    });
    source.addEventListener("change", (event) => deliver(JSON.parse(event.data)));
    source.addEventListener("error", () => {
      showDown(true);
      // CONNECTING: the browser retries by itself, sending Last-Event-ID.
      if (source.readyState !== EventSource.CLOSED) return;
      // CLOSED: the server or a proxy refused the stream; reconnect by hand, or poll.
      source.close();
      refused += 1;
      if (refused < STREAM_TRIES) window.setTimeout(stream, 1000 * refused);
      else poll();
    });
  }

  async function poll(started = Date.now()) {
    if (window.EventSource && Date.now() - started > RETRY_STREAM_MS) {
      refused = STREAM_TRIES - 1; // one refusal more and we are back to polling
      stream();
      return;
    }
    try {
      const response = await fetch(since(live.dataset.poll), {
        headers: { Accept: "application/json" },
        cache: "no-store",
      });
      if (response.status === 200) deliver(await response.json());
      const answered = response.status === 200 || response.status === 204;
      showDown(!answered, answered ? "polling" : "reconnecting");
    } catch {
      showDown(true);
    }
    window.setTimeout(() => poll(started), POLL_MS);
  }

  if (window.EventSource) stream();
  else poll();
})();

// The live channel (campaign/live.py): tells the page which PJ cards changed.
//
// Needs <div id="live" data-stream data-poll data-cursor data-reconnecting> (see
// templates/campaign/_live.html) holding #live-status, a role="status" element shown while
// the stream is down. Every change becomes a `zodiac:change` event on document, detail
// {cursor, pj, all}; the page then fetches its own rendering of what changed.
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
    const detail = { cursor: data.cursor, pj: data.pj, all: data.all };
    document.dispatchEvent(new CustomEvent("zodiac:change", { detail }));
  }

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

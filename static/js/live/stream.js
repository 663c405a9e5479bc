// The transport: one EventSource on the live stream (campaign/live/views.py), or polling
// its twin where the stream cannot be had, for the campaigns `follow` names.
//
// Stream events: `hello` (the server's clock, the campaigns gone, the latest cursor of
// what the user may see of each), `ping` (the clock), `change` (one campaign's news),
// `reopen` (what the user may see changed: open again), `poll` (this server cannot
// stream: poll instead). STREAM_TRIES refusals in a row and the page polls, trying the
// stream again every RETRY_STREAM_MS.

const POLL_MS = 2000;
const STREAM_TRIES = 3; // refused streams in a row before polling instead
const RETRY_STREAM_MS = 60000; // while polling, try the stream again this often
// The server says something at least every 15 s (a ping, even while it is behind:
// campaign/live/views.py HEARTBEAT). Silence for this long is a connection that died
// without closing (a network that stopped passing anything): the page says so and opens
// the stream anew, which the browser would not do by itself.
const SILENT_MS = 40000;

// urls: {stream, poll} (read at each (re)connection). follow: Map of campaign id -> the
// cursor to start after; it follows every message. on: the callbacks message(message),
// state("open" | "reconnecting" | "polling"), clock(offset), gone(campaigns),
// changedAccess(campaigns), access(latest). Returns {follow, stop()}.
export function transport(urls, follow, on) {
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

  let silence = null;
  function listen(heard) {
    // Any message, or the connection opening: the stream is alive for SILENT_MS more.
    window.clearTimeout(silence);
    if (heard) silence = window.setTimeout(silent, SILENT_MS);
  }
  function silent() {
    if (stopped || !source) return;
    source.close();
    on.state("reconnecting");
    stream();
  }

  function stream() {
    if (stopped) return;
    const url = new URL(urls.stream, window.location.href);
    url.searchParams.set("since", since());
    source = new EventSource(url);
    listen(true); // a connection that never opens is silent too
    for (const name of ["open", "hello", "ping", "change"]) {
      source.addEventListener(name, () => listen(true));
    }
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
      listen(false);
      source.close();
      on.changedAccess(JSON.parse(event.data).campaigns || []);
      stream();
    });
    // A server that cannot stream (runserver): poll at once.
    source.addEventListener("poll", (event) => {
      listen(false);
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
      listen(false);
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
      const url = new URL(urls.poll, window.location.href);
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
      listen(false);
      if (source) source.close();
    },
  };
}

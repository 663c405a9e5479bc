// One stream per browser: the tabs of one user share it.
//
// THE PROTOCOL
//
// Every live page of one user in one browser (a "tab") joins the BroadcastChannel
// `zodiac-live-<user id>` and queues for the Web Lock of the same name. The tab that
// holds the lock is the leader: it alone opens the transport (stream.js) and relays what
// the transport says to the others; the other tabs open nothing. BroadcastChannel never
// delivers a message to its sender, so the leader also does itself what a receiver does.
//
// Each tab has an id (a random key) and keeps a table of every tab of this browser it
// has heard of, itself included: tab id -> {campaign, cursor}, the cursor being the last
// change that page has had of its campaign.
//
// Messages (the `type` of each; "all" means every tab but the sender):
//
//   hello  {tab, campaign, cursor}  any tab, on start, on resume, and in answer to
//          `leader`. All: put the tab in the table. The leader also makes sure its
//          transport follows that campaign: if not, it stops it and opens a new one
//          following that campaign too, from the hello's cursor; then, either way, it
//          says `state`.
//   bye    {tab}  a tab, on pagehide. All: drop the tab from the table (a campaign the
//          transport follows stays followed).
//   leader {}  a tab that just took the lock and opened the transport. All: say `hello`
//          with their own cursor, so the new leader knows every page.
//   change {message}  the leader, for each change message of the transport (any campaign
//          it follows), when its table holds another tab (alone, it says it to nobody: a
//          tab that starts meanwhile catches up through the `state` answering its
//          hello). All: move the cursor of every tab of that campaign in the table on to
//          the message's; a tab of that campaign takes the message as its own
//          stream's (index.js: newer than its cursor, else ignored; one with news missed
//          before it, or a reset, means every card anew). Every tab: the stream is up
//          (a "reconnecting" shown goes, see `state`).
//   state  {state, offset, cursors}  the leader, each time its transport tells its
//          state ("open", "reconnecting", "polling": at every poll; "connecting" before
//          the first) and after each `hello`. offset: the server's clock minus the
//          leader's (ms) or null; cursors: {campaign id: cursor} the transport has
//          reached. All but the leader (a `state` it hears is a former leader's, come
//          late: BroadcastChannel orders one sender's messages, not two's): show the state
//          (the "Reconnecting…" line, #live's data-state) until news says otherwise (a
//          `change` or `clock` heard after a "reconnecting" shows the stream up: a former
//          leader's last word may reach the others late too); take the offset unless
//          null; a tab whose campaign's cursor there is past its own missed news (the
//          transport had it before this tab said hello): it asks for every card anew.
//   clock  {offset}  the leader, for each reading of the server's clock (the stream's
//          hello, ping and change; polling), when its table holds another tab. All:
//          take the offset (taps are dated with it); the stream is up.
//   gone   {campaigns}  the leader, when the server says those campaigns are no longer
//          this user's. All: a tab of one of them loads its page anew.
//   access {campaigns}  the leader, when the stream says to reopen (what the user may see
//          of those campaigns changed). All: as for `gone`.
//   latest {latest}  the leader, from the stream's hello: {campaign id: the cursor of the
//          last change of what the user may see there}. All: a tab whose campaign's
//          latest is past its own cursor loads its page anew.
//
// TAKEOVER. The lock is held for as long as the leader leads. When the leader's tab
// closes (the browser frees its lock) or is frozen (on `freeze` it stops its transport
// and frees the lock), the next tab in the lock's queue (the longest waiting) becomes the
// leader. It opens the transport following each campaign of its table from the oldest
// cursor any tab of that campaign had (its table moved on with every `change` it heard),
// so no tab misses a change the old leader had not relayed (a tab ignores the ones it
// already had: their cursor is not past its own); then says `leader`. Every tab answers
// `hello`, and the new leader joins the campaigns it lacked and says `state`, whose
// cursors let a tab that is behind ask anew. A frozen tab says no `bye` (its entry stays,
// its campaign stays followed); on `resume` it says `hello`, queues for the lock again if
// it had left it, and asks for every card anew.

import { newKey, serverClock, setServerOffset as setClock } from "./taps.js";

// page: what this tab's page lets the protocol do: live (the #live element), user,
// campaign, cursor() (the page's cursor now), receive(message), showDown(state), alive()
// (the stream was heard), gone(campaigns), access(latest), news(detail), open(follow, on)
// (a transport, stream.js).
//
// Returns onlyTab(): whether this tab is, as far as its table knows, the only page of its
// campaign in this browser (taps.js says so with each tap: see onlyTabSays).
export function shareStream(page) {
  const { live, campaign } = page;
  const name = `zodiac-live-${page.user}`;
  const channel = new BroadcastChannel(name);
  const tab = newKey();
  const tabs = new Map([[tab, { campaign, cursor: page.cursor() }]]); // every page of this browser
  let leading = null; // the transport this tab holds for the browser
  let stepDown = null;
  let state = "connecting";
  const say = (data) => channel.postMessage(data);

  // Every tab's news reaches every tab: each knows where every page is.
  function advance(message) {
    for (const other of tabs.values()) {
      if (other.campaign === message.campaign) other.cursor = Math.max(other.cursor, message.cursor);
    }
  }
  function hello() {
    const cursor = page.cursor();
    tabs.get(tab).cursor = cursor;
    say({ type: "hello", tab, campaign, cursor });
  }

  channel.addEventListener("message", ({ data }) => {
    if (data.type === "change") {
      advance(data.message);
      page.alive();
      page.receive(data.message);
    } else if (data.type === "hello") {
      tabs.set(data.tab, { campaign: data.campaign, cursor: data.cursor });
      if (leading) join(data.campaign, data.cursor);
    } else if (data.type === "bye") {
      tabs.delete(data.tab);
    } else if (data.type === "state") {
      // The holder knows its own transport's state: another tab's word on it is a former
      // holder's, come late (it shows its own "open" at once, the others' through here).
      if (leading) return;
      page.showDown(data.state);
      if (data.offset !== null) setClock(data.offset);
      // The stream got news this page did not hear (it opened just before): ask anew.
      const at = data.cursors && data.cursors[campaign];
      if (at > page.cursor()) page.receive({ campaign, after: at, cursor: at });
    } else if (data.type === "clock") {
      page.alive();
      setClock(data.offset);
    } else if (data.type === "gone" || data.type === "access") {
      page.gone(data.campaigns);
    } else if (data.type === "latest") {
      page.access(data.latest);
    } else if (data.type === "leader") {
      hello();
    }
  });

  function tellState() {
    const cursors = leading ? Object.fromEntries(leading.follow) : null;
    say({ type: "state", state, offset: serverClock(), cursors });
  }

  // A page of a campaign the stream does not follow yet: open it again with that one too.
  function join(other, at) {
    if (!leading.follow.has(other)) {
      const follow = new Map(leading.follow).set(other, at);
      leading.stop();
      leading = page.open(follow, relay);
    }
    tellState();
  }

  // What the leader's transport says, done here and said to every other tab (news and the
  // clock only when there is one: a phone with one sheet open says them to nobody).
  const alone = () => tabs.size === 1;
  const relay = {
    message(message) {
      if (!alone()) say({ type: "change", message });
      advance(message);
      page.alive();
      page.receive(message);
    },
    state(now) {
      state = now;
      page.showDown(now);
      tellState();
    },
    clock(now) {
      page.alive();
      setClock(now);
      if (!alone()) say({ type: "clock", offset: now });
    },
    gone(campaigns) {
      say({ type: "gone", campaigns });
      page.gone(campaigns);
    },
    changedAccess(campaigns) {
      say({ type: "access", campaigns });
      page.gone(campaigns);
    },
    access(latest) {
      say({ type: "latest", latest });
      page.access(latest);
    },
  };

  function lead() {
    return new Promise((release) => {
      // From where every page is: the stream starts at the oldest cursor of each campaign.
      tabs.get(tab).cursor = page.cursor();
      const follow = new Map();
      for (const other of tabs.values()) {
        const at = follow.has(other.campaign) ? follow.get(other.campaign) : Infinity;
        follow.set(other.campaign, Math.min(at, other.cursor));
      }
      leading = page.open(follow, relay);
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
    page.news({ cursor: undefined, pj: [], all: true });
  });
  // A tab frozen without a `bye` still counts: its page would need the rendering.
  return () => [...tabs].every(([id, other]) => id === tab || other.campaign !== campaign);
}

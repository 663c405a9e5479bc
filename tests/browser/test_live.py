"""static/js/live/ in a real browser: changes arrive as `zodiac:change` events, by SSE or
by polling where EventSource is missing, and "Reconectando…" shows while the server is away.

The page is the rules page with the live element added, so the script is tested on its own,
whatever screen includes it.
"""

from playwright.sync_api import expect

from campaign import services
from tests.browser.conftest import log_in, start_server, stop_server
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

LIVE = """([stream, poll, campaign, cursor, user]) => {
  window.zodiacChanges = [];
  document.addEventListener("zodiac:change", (event) => window.zodiacChanges.push(event.detail));
  const live = document.createElement("div");
  live.id = "live";
  const reconnecting = "Reconectando…";
  Object.assign(live.dataset, { stream, poll, campaign, cursor, user, view: "dj", reconnecting });
  live.innerHTML = '<p id="live-status" role="status" hidden></p>';
  document.querySelector("main").prepend(live);
}"""


def open_live_page(page, base: str, campaign, user) -> None:
    page.goto(base + "/reglas/")
    campaign.refresh_from_db()
    values = ["/en-vivo/", "/en-vivo/cambios/", str(campaign.pk), str(campaign.change_cursor)]
    page.evaluate(LIVE, [*values, str(user.pk)])
    page.add_script_tag(url=base + "/static/js/live/index.js", type="module")


def wound(character) -> None:
    services.event_record(
        campaign=character.campaign,
        character=character,
        event={"kind": "suffer", "type": "heridas", "grade": "leve"},
    )


def received(page, pj_id: int) -> None:
    page.wait_for_function(
        "(id) => window.zodiacChanges.some((change) => change.pj.includes(id))",
        arg=pj_id,
    )


def table():
    dj = UserFactory(username="sensei")
    campaign = CampaignFactory(slug="kiso", dj=dj)
    return dj, CharacterFactory(campaign=campaign, name="Aiko")


def test_a_change_arrives_as_an_event(page, app_url):
    dj, aiko = table()
    log_in(page.context, app_url, dj)
    with page.expect_response(lambda r: "/en-vivo/" in r.url and r.status == 200):
        open_live_page(page, app_url, aiko.campaign, dj)
    expect(page.get_by_role("status")).to_be_hidden()

    wound(aiko)

    received(page, aiko.pk)
    detail = page.evaluate("() => window.zodiacChanges.at(-1)")
    assert {key: detail[key] for key in ("cursor", "pj", "all")} == {
        "cursor": aiko.campaign.change_cursor + 1,
        "pj": [aiko.pk],
        "all": False,
    }
    # The stream brought the board's rendering of that card along.
    assert f'id="pj-{aiko.pk}"' in detail["parts"][f"card:{aiko.pk}"]


def test_chromium_gets_the_stream_gzipped_and_each_change_at_once(page, app_url):
    dj, aiko = table()
    log_in(page.context, app_url, dj)
    with page.expect_response(lambda r: "/en-vivo/" in r.url and r.status == 200) as stream:
        open_live_page(page, app_url, aiko.campaign, dj)
    assert stream.value.headers.get("content-encoding") == "gzip"
    assert stream.value.headers.get("x-accel-buffering") == "no"

    for count in (1, 2):  # each change inflated and dispatched as it is written
        wound(aiko)
        page.wait_for_function("(n) => window.zodiacChanges.length >= n", arg=count)

    sizes = page.evaluate(
        "() => { const [n] = performance.getEntriesByType('navigation');"
        " return [n.encodedBodySize, n.decodedBodySize]; }"
    )
    assert sizes[0] * 3 < sizes[1]  # the page itself came gzipped too


def test_without_event_source_the_page_polls(page, app_url):
    dj, aiko = table()
    log_in(page.context, app_url, dj)
    page.add_init_script("delete window.EventSource;")
    with page.expect_response(lambda r: "/cambios/?since=" in r.url and r.status == 204):
        open_live_page(page, app_url, aiko.campaign, dj)
    wound(aiko)

    received(page, aiko.pk)  # by the next poll


def test_the_page_says_it_is_reconnecting_while_the_server_is_away(page, transactional_db):
    process, base = start_server()
    try:
        dj, aiko = table()
        log_in(page.context, base, dj)
        with page.expect_response(lambda r: "/en-vivo/" in r.url and r.status == 200):
            open_live_page(page, base, aiko.campaign, dj)

        process.kill()  # a crash: the stream drops at once

        expect(page.get_by_role("status")).to_have_text("Reconectando…")
        expect(page.get_by_role("status")).to_be_visible()
    finally:
        stop_server(process)


PATCH = """async () => {
  const { patch } = await import("/static/js/live/index.js");
  const make = (html) => {
    const t = document.createElement("template");
    t.innerHTML = html.trim();
    return t.content.firstElementChild;
  };
  const old = make(`<article id="pj-1" class="pj-card">
    <h2>Aiko</h2><p class="gone">x</p>
    <details><summary>Más</summary></details>
    <ul><li>uno</li></ul><span>Shock</span></article>`);
  document.querySelector("main").append(old);
  const title = old.querySelector("h2");
  old.querySelector("details").open = true;
  patch(old, make(`<article id="pj-1" class="pj-card cannot-act" data-x="1">
    <h2>Aiko</h2><p>y</p>
    <details><summary>Más</summary></details>
    <ul><li>uno</li><li>dos</li></ul><em>Shock</em></article>`));
  return {
    same: document.getElementById("pj-1") === old && old.querySelector("h2") === title,
    className: old.className,
    data: old.dataset.x,
    p: old.querySelector("p").outerHTML,
    open: old.querySelector("details").open,
    items: [...old.querySelectorAll("li")].map((li) => li.textContent),
    replaced: !old.querySelector("span") && old.querySelector("em").textContent,
  };
}"""


def test_a_refreshed_part_is_changed_in_place(page, app_url):
    """live/index.js patch: the same nodes, changed where the fresh rendering differs."""
    dj, aiko = table()
    log_in(page.context, app_url, dj)
    open_live_page(page, app_url, aiko.campaign, dj)

    result = page.evaluate(PATCH)

    assert result == {
        "same": True,
        "className": "pj-card cannot-act",
        "data": "1",
        "p": "<p>y</p>",
        "open": True,  # the user opened it: still open
        "items": ["uno", "dos"],
        "replaced": "Shock",
    }


KEEPS = """async () => {
  const { patch } = await import("/static/js/live/index.js");
  const make = (html) => {
    const t = document.createElement("template");
    t.innerHTML = html.trim();
    return t.content.firstElementChild;
  };
  const card = (at, extra) => `<article id="pj-2" class="pj-card"><h2>Aiko</h2>
    <form><input type="hidden" name="at" value="${at}"><input name="amount" value="${at}">
    <select name="event"><option value="1">uno</option><option value="2">dos</option>${extra}
    </select><button type="submit">Anular</button></form>
    <details class="more"><summary>Más</summary><p>${at}</p></details></article>`;
  const old = make(card(1, ""));
  document.querySelector("main").append(old);
  old.querySelector("[name=amount]").value = "typed";
  old.querySelector("select").value = "2";
  old.querySelector("details").open = true;
  const warning = document.createElement("p");
  warning.dataset.keep = "";
  warning.textContent = "Not recorded";
  old.querySelector("h2").after(warning);
  old.querySelector("button").focus();
  patch(old, make(card(2, '<option value="3">tres</option>')));
  return {
    hidden: old.querySelector("[name=at]").value,
    typed: old.querySelector("[name=amount]").value,
    chosen: old.querySelector("select").value,
    options: old.querySelectorAll("option").length,
    open: old.querySelector("details").open,
    text: old.querySelector("details p").textContent,
    focused: document.activeElement === old.querySelector("button"),
    warning: warning.isConnected,
  };
}"""


def test_a_refresh_leaves_what_the_user_typed_chose_opened_and_focused(page, app_url):
    """patch changes the rendering, not the user's own state in it."""
    dj, aiko = table()
    log_in(page.context, app_url, dj)
    open_live_page(page, app_url, aiko.campaign, dj)

    assert page.evaluate(KEEPS) == {
        "hidden": "2",  # not the user's: the new rendering's
        "typed": "typed",
        "chosen": "2",
        "options": 3,
        "open": True,
        "text": "2",
        "focused": True,
        "warning": True,  # the page's own words about a tap stay
    }

"""campaign.fastpath: live refreshes answered from memory, only for sessions Django let in."""

import asyncio
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.test import RequestFactory

from campaign import fastpath, live
from tests.factories import CampaignFactory, MembershipFactory, UserFactory


def scope(path="/c/kiso/refrescar/", query=b"pj=7", cookie="sessionid=s1"):
    return {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query,
        "headers": [(b"cookie", cookie.encode())],
    }


@pytest.fixture
def hub(monkeypatch):
    """A live hub following campaign 3 at change cursor 12."""
    fake = SimpleNamespace(feeds={3: SimpleNamespace(window=SimpleNamespace(cursor=12))})
    monkeypatch.setattr(live, "_hub", fake)
    monkeypatch.setattr(fastpath, "WAIT", 0.01)
    return fake


def rendered(cursor=12, lang="es"):
    fastpath.SHARED.get((3, cursor, lang, "card", 7), lambda: "<article>7</article>")
    fastpath.SHARED.get((3, cursor, lang, "panels"), lambda: "<p>clock</p>")


def answer(s):
    return asyncio.run(fastpath._answer(s))


def test_a_granted_session_gets_the_rendered_parts_from_memory(hub):
    rendered()
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)

    assert answer(scope()) == b"<article>7</article><p>clock</p>"


def test_no_grant_no_memory(hub):
    rendered()
    assert answer(scope()) is None
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)
    assert answer(scope(cookie="sessionid=other")) is None
    assert answer(scope(path="/c/other/refrescar/")) is None
    assert answer(scope(cookie="")) is None


def test_a_grant_expires(hub, monkeypatch):
    rendered()
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)
    later = fastpath.time.monotonic() + fastpath.GRANT_SECONDS + 1
    monkeypatch.setattr(fastpath.time, "monotonic", lambda: later)

    assert answer(scope()) is None


@pytest.mark.django_db  # django-axes logs the logout too
def test_logging_out_forgets_the_grant(hub):
    rendered()
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)
    request = RequestFactory().get("/")
    request.session = SimpleNamespace(session_key="s1")

    user_logged_out.send(sender=None, request=request, user=None)

    assert answer(scope()) is None


def test_parts_of_an_older_cursor_or_another_language_are_not_served(hub):
    rendered(cursor=11)
    rendered(lang="en")
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)

    assert answer(scope()) is None
    english = f"sessionid=s1; {settings.LANGUAGE_COOKIE_NAME}=en"
    assert answer(scope(cookie=english)) == b"<article>7</article><p>clock</p>"


def test_without_a_live_feed_in_this_process_django_answers(hub):
    rendered()
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)
    hub.feeds.clear()

    assert answer(scope()) is None


def test_a_refresh_of_everyone_needs_the_list_of_cards(hub):
    rendered()
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)
    assert answer(scope(query=b"all=1")) is None

    fastpath.SHARED.get((3, 12, "es", "pks"), lambda: "7")

    assert answer(scope(query=b"all=1")) == b"<article>7</article><p>clock</p>"


@pytest.mark.parametrize("query", [b"pj=x", b"pj=7&pj=%3Cscript%3E", b"pj=%C2%B2"])
def test_odd_queries_go_to_django(hub, query):
    rendered()
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)
    assert answer(scope(query=query)) is None


def test_one_render_per_key_however_many_ask_at_once():
    import threading

    calls = []
    started = threading.Event()
    release = threading.Event()

    def slow():
        calls.append(1)
        started.set()
        release.wait(2)
        return "<p>once</p>"

    results = []
    first = threading.Thread(target=lambda: results.append(fastpath.SHARED.get(("k",), slow)))
    first.start()
    started.wait(2)
    others = [
        threading.Thread(target=lambda: results.append(fastpath.SHARED.get(("k",), slow)))
        for _ in range(5)
    ]
    for t in others:
        t.start()
    release.set()
    for t in [first, *others]:
        t.join(2)

    assert calls == [1]
    assert results == ["<p>once</p>"] * 6


def test_half_way_through_a_grant_memory_still_answers_and_asks_the_database_again(
    hub, monkeypatch
):
    rendered()
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)
    checked = []
    monkeypatch.setattr(fastpath, "_recheck", lambda *args: checked.append(args))
    later = fastpath.time.monotonic() + fastpath.GRANT_SECONDS * 0.6
    monkeypatch.setattr(fastpath.time, "monotonic", lambda: later)

    assert answer(scope()) == b"<article>7</article><p>clock</p>"
    fastpath._RECHECKS.submit(lambda: None).result()  # the queued recheck has run
    assert checked == [("s1", "kiso", 3)]


def test_a_fresh_grant_is_not_checked_again(hub, monkeypatch):
    rendered()
    fastpath.grant(session_key="s1", slug="kiso", campaign_id=3)
    checked = []
    monkeypatch.setattr(fastpath, "_recheck", lambda *args: checked.append(args))

    answer(scope())
    fastpath._RECHECKS.submit(lambda: None).result()
    assert checked == []


def _dj_session(client):
    dj = UserFactory()
    campaign = CampaignFactory(slug="kiso")
    membership = MembershipFactory(campaign=campaign, user=dj, role="dj")
    client.force_login(dj)
    return client.session.session_key, campaign, membership


def _expiry(key):
    return fastpath._grants.get(key, (None,))[0]


@pytest.mark.django_db
def test_the_recheck_renews_a_valid_session(client):
    session_key, campaign, _membership = _dj_session(client)
    fastpath._grants[(session_key, "kiso")] = (fastpath.time.monotonic() + 1, campaign.pk)

    fastpath._recheck(session_key, "kiso", campaign.pk)

    assert _expiry((session_key, "kiso")) > fastpath.time.monotonic() + fastpath.GRANT_SECONDS - 1


@pytest.mark.django_db
@pytest.mark.parametrize("lost", ["logged out elsewhere", "no longer its DJ", "password changed"])
def test_the_recheck_drops_a_session_that_lost_the_board(client, lost):
    session_key, campaign, membership = _dj_session(client)
    fastpath._grants[(session_key, "kiso")] = (fastpath.time.monotonic() + 4, campaign.pk)
    if lost == "logged out elsewhere":
        client.session.delete(session_key)
    elif lost == "no longer its DJ":
        membership.delete()
    else:
        membership.user.set_password("another-password-9")
        membership.user.save()

    fastpath._recheck(session_key, "kiso", campaign.pk)

    assert (session_key, "kiso") not in fastpath._grants

"""The pages of a process without a database connection, as a browser shows them: busy (429,
its pool lent none in time while the database answers) and out of reach (503). Each is the
error handler's own answer (campaign/views/errors.py) to a page asked for, served in place
of the app's answer, read at 1280 and 360 px, and checked by axe-core."""

import pytest
from django.db import OperationalError
from django.test import RequestFactory
from django.utils import translation
from playwright.sync_api import expect

from campaign import database
from campaign.views import errors
from tests.browser.conftest import screenshot
from tests.browser.test_accessibility import axe, describe
from tests.pool import closed_port, pool_timeout


def handler_answer(path: str) -> dict:
    """What handler500 answers a request for `path` that met a pool timeout."""
    request = RequestFactory().get(path)
    with translation.override("es"):
        try:
            raise pool_timeout()
        except OperationalError:
            response = errors.server_error_page(request)
    headers = dict(response.items())
    return {"status": response.status_code, "headers": headers, "body": response.content}


@pytest.fixture
def probe_reaches(monkeypatch):
    def reaches(answers: bool) -> None:
        database.forget()
        if answers:
            monkeypatch.setattr(database, "answers", lambda: True)
        else:  # a real probe, of a server that is not there
            where = {"host": "127.0.0.1", "port": closed_port(), "dbname": "none"}
            monkeypatch.setattr(database, "direct_params", lambda: where)

    yield reaches
    database.forget()


@pytest.mark.parametrize("width", [1280, 360])
@pytest.mark.parametrize(
    ("answers", "status", "title", "words"),
    [
        (True, 429, "El servidor está muy ocupado", "No se ha registrado nada."),
        (False, 503, "El servidor no alcanza sus datos", "puede que no se haya anotado"),
    ],
)
def test_a_page_without_a_connection_says_why_and_what_to_do(
    browser, app_url, probe_reaches, width, answers, status, title, words
):
    probe_reaches(answers)
    answer = handler_answer("/")
    assert answer["status"] == status
    context = browser.new_context(viewport={"width": width, "height": 800}, locale="es-ES")
    page = context.new_page()
    page.route(f"{app_url}/", lambda route: route.fulfill(**answer))

    response = page.goto(f"{app_url}/")

    assert response.status == status
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
    expect(page.locator("main")).to_contain_text(words)
    expect(page.get_by_role("link", name="Volver a tus campañas")).to_be_visible()
    # Its stylesheet, from the server: the page is the app's, not the browser's bare text.
    assert page.evaluate("getComputedStyle(document.querySelector('.topbar')).display") != "inline"
    assert describe(f"{status} at {width}", axe(page)) == []
    screenshot(page, f"database-{status}-{width}")
    context.close()

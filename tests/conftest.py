"""Fixtures shared by the app's tests (tests/rules/ needs none of these)."""

from pathlib import Path

import pytest
from django.utils import translation

from tests.factories import CampaignFactory, CharacterFactory, UserFactory

# Modules whose tests start server processes of their own: marked `slow`.
SLOW = {"test_live_server.py", "test_concurrency.py", "test_deploy.py"}


@pytest.hookimpl(tryfirst=True)  # before `-m` chooses by these marks
def pytest_collection_modifyitems(config, items):
    """Mark what a quick run (`make quick`) leaves out: the browser tests and the slow ones.

    And browser tests last: Playwright's sync API leaves an event loop set in the main thread
    until the session ends, and Django refuses plain ORM calls from a thread with one.
    """
    for item in items:
        path = Path(str(item.path))
        if "browser" in path.parts:
            item.add_marker(pytest.mark.browser)
        elif path.name in SLOW:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: "/tests/browser/" in str(item.path))


@pytest.fixture
def dj(db):
    return UserFactory(username="test-dj")


@pytest.fixture
def campaign(dj):
    return CampaignFactory(name="Kiso", slug="kiso", dj=dj)


@pytest.fixture
def aiko(campaign):
    return CharacterFactory(
        campaign=campaign, name="Aiko", attributes={"FUE": 3, "AGI": 5, "DES": 4, "VOL": 3}
    )


@pytest.fixture
def kenji(campaign):
    return CharacterFactory(
        campaign=campaign,
        name="Kenji",
        attributes={"FUE": 5, "AGI": 3, "DES": 3, "VOL": 4},
        powers=["regeneracion"],
    )


@pytest.fixture
def player(db):
    return UserFactory(username="mei")


@pytest.fixture
def joined(campaign, aiko, player, dj):
    """Aiko, played by `player` (mei), who joined through the DJ's invitation."""
    from campaign import services

    invitation = services.invitation_create(character=aiko, by=dj)
    services.invitation_accept(invitation=invitation, user=player)
    aiko.refresh_from_db()
    return aiko


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """On SQLite the test database is a file, so a server process can open it too."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        path = tmp_path_factory.mktemp("db") / "test.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(path)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """PBKDF2 is slow on purpose; the tests only need hashes that check."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def no_language_left_behind():
    """Each test starts in the site's language. A management command run by a test
    (call_command) deactivates translations for its run and, when none was active before,
    leaves them off: later tests in the same thread would speak the msgids (English)."""
    yield
    translation.deactivate()

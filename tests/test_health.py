"""The health endpoint a proxy or systemd watches (campaign/views/health.py)."""

from django.core.management import call_command
from django.db import DatabaseError
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.urls import reverse


def test_a_healthy_server_says_so(client, db):
    response = client.get(reverse("health"))

    assert response.status_code == 200
    assert response.json() == {"database": "ok", "migrations": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_a_migration_not_applied_is_a_503(client, transactional_db):
    previous = sorted(MigrationLoader(None).graph.leaf_nodes("campaign"))[0][1]
    parent = MigrationLoader(None).graph.node_map[("campaign", previous)].parents
    target = next(name for app, name in parent if app == "campaign")
    call_command("migrate", "campaign", target, verbosity=0)  # the server before an upgrade
    try:
        response = client.get(reverse("health"))
    finally:
        call_command("migrate", "campaign", verbosity=0)

    assert response.status_code == 503
    assert response.json() == {"database": "ok", "migrations": "1 not applied"}


def test_a_database_that_does_not_answer_is_a_503(client, db, monkeypatch):
    def refuse(self, targets):
        raise DatabaseError("gone")

    monkeypatch.setattr(MigrationExecutor, "migration_plan", refuse)

    response = client.get(reverse("health"))

    assert response.status_code == 503
    assert response.json() == {"database": "unreachable", "migrations": "unknown"}


def test_it_takes_a_get_only(client, db):
    assert client.post(reverse("health")).status_code == 405


def test_a_process_too_busy_to_lend_a_connection_says_busy_not_broken(client, db, monkeypatch):
    from campaign import database
    from tests.pool import pool_timeout

    timeout = pool_timeout()

    def wait(self, targets):
        raise timeout

    monkeypatch.setattr(MigrationExecutor, "migration_plan", wait)
    monkeypatch.setattr(database, "answers", lambda: True)  # its database answers

    response = client.get(reverse("health"))

    assert response.status_code == 429  # not a 503: the proxy keeps it in rotation
    assert response.json() == {"database": "busy", "migrations": "unknown"}

"""The server's health, for a proxy or systemd watching it: the database answers and every
migration is applied. Public (it says nothing about any campaign), and never cached.

A process too busy to lend a database connection in time, while the database answers, says
so with a 429 (campaign/views/errors.py): it works, it is not to be taken out of rotation
or restarted."""

from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .errors import database_busy


@require_GET
@never_cache
def health(request: HttpRequest) -> JsonResponse:
    """200 {"database": "ok", "migrations": "ok"}, 429 when busy, or 503 saying which is not."""
    report = {"database": "ok", "migrations": "ok"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as error:
        if database_busy(error):
            return JsonResponse({"database": "busy", "migrations": "unknown"}, status=429)
        report = {"database": "unreachable", "migrations": "unknown"}
    else:
        if pending:
            report["migrations"] = f"{len(pending)} not applied"
    healthy = report == {"database": "ok", "migrations": "ok"}
    return JsonResponse(report, status=200 if healthy else 503)

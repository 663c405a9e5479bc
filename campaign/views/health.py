"""The server's health, for a proxy or systemd watching it: the database answers and every
migration is applied. Public (it says nothing about any campaign), and never cached."""

from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


@require_GET
@never_cache
def health(request: HttpRequest) -> JsonResponse:
    """200 {"database": "ok", "migrations": "ok"}, or 503 saying which is not."""
    report = {"database": "ok", "migrations": "ok"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError:
        report = {"database": "unreachable", "migrations": "unknown"}
    else:
        if pending:
            report["migrations"] = f"{len(pending)} not applied"
    healthy = report == {"database": "ok", "migrations": "ok"}
    return JsonResponse(report, status=200 if healthy else 503)

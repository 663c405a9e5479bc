"""The error pages of a process without a database connection: busy, or cut off from it.

Django answers an uncaught exception with the 500 page. Two database errors get their own:

- **Busy**: the request waited `DATABASE_POOL_TIMEOUT` for one of the process's pooled
  connections while the database answers (campaign.database): every connection is lent to
  other requests. Nothing was written (a request takes its connection before its first
  query). A tap is refused next to its control, as a late one is (409, X-Zodiac-Refused:
  busy); anything else gets 429 with Retry-After and a page that says to try again. Neither
  is a failure to the proxy, so the process stays in rotation: a busy process taken out
  would pass its load to the others until they were all out (docs/benchmarks.md).
- **Out of reach** (the connection refused, dropped or timed out, or the pool waited while
  the database does not answer): 503 with Retry-After. The page says to try again in a
  moment (a tap's transaction rolled back, unless the connection went during its commit);
  nginx counts the 503 as this process failing, passes the request to another one (a tap
  carries its idempotency key: sent twice, it is recorded once) and leaves this process out
  of rotation for a while (deploy/nginx/zodiac.conf, docs/hosting.md).

Any other error is the 500 page.
"""

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.utils.translation import gettext as _
from django.views.decorators.csrf import requires_csrf_token
from django.views.defaults import server_error

from .. import database
from ..middleware import tap_refused

RETRY_AFTER = 5  # seconds, the proxy's fail_timeout: the process is tried again after it
BUSY_RETRY_AFTER = 2  # seconds: a busy process lends a connection again within a moment

# SQLSTATE classes of a connection that failed or went: 08 (connection exception) and
# 57P01-57P03 (the server shut down or is starting). A client-side failure has none.
_GONE = ("08", "57P01", "57P02", "57P03")


def database_unreachable(error: BaseException | None) -> bool:
    """Whether `error` is the database out of reach, not a query that failed."""
    if isinstance(error, InterfaceError):
        return True
    if not isinstance(error, OperationalError):
        return False
    cause = error.__cause__
    if cause is None or type(cause).__module__.split(".")[0] not in ("psycopg", "psycopg_pool"):
        return False  # SQLite's "database is locked" and the like: a 500, as before
    sqlstate = getattr(cause, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith(_GONE)


def database_busy(error: BaseException | None) -> bool:
    """Whether `error` is a wait for a pooled connection while the database answers."""
    return database.pool_timeout(error) and database.answers()


@requires_csrf_token
def server_error_page(request: HttpRequest) -> HttpResponse:
    """handler500: busy, the 503 page while the database is out of reach, else Django's 500."""
    error = sys.exc_info()[1]
    if database_busy(error):
        return _busy(request)
    if not database_unreachable(error):
        return server_error(request)
    response = _page(status=503, busy=False)
    response["Retry-After"] = str(RETRY_AFTER)
    return response


def _busy(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and request.headers.get("HX-Request"):
        response = tap_refused(
            _("Not recorded: the server is very busy. Wait a few seconds and tap again."),
            why="busy",
        )
    else:
        response = _page(status=429, busy=True)
    response["Retry-After"] = str(BUSY_RETRY_AFTER)
    return response


def _page(status: int, busy: bool) -> HttpResponse:
    try:
        page = loader.get_template("503.html").render({"busy": busy})
    except Exception:  # the page must not fail in turn: a plain answer
        text = "Busy" if busy else "Service unavailable"
        return HttpResponse(text, content_type="text/plain", status=status)
    return HttpResponse(page, status=status)

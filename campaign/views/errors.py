"""The error page of a process that cannot reach its database: a 503 the proxy acts on.

Django answers an uncaught exception with the 500 page. When the exception says the
database is out of reach (the connection refused, dropped or timed out, the pool gave no
connection in time), this answers 503 with Retry-After instead. The page says to try again
in a moment (a tap's transaction rolled back, unless the connection went during its
commit); nginx counts the 503 as this process failing, passes the request to another one
(a tap carries its idempotency key: sent twice, it is recorded once) and leaves this
process out of rotation for a while (deploy/nginx/zodiac.conf, docs/hosting.md). Any
other error is the 500 page.
"""

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.views.decorators.csrf import requires_csrf_token
from django.views.defaults import server_error

RETRY_AFTER = 5  # seconds, the proxy's fail_timeout: the process is tried again after it

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


@requires_csrf_token
def server_error_page(request: HttpRequest) -> HttpResponse:
    """handler500: the 503 page while the database is out of reach, else Django's 500."""
    if not database_unreachable(sys.exc_info()[1]):
        return server_error(request)
    try:
        page = loader.get_template("503.html").render()
    except Exception:  # the page must not fail in turn: a plain answer
        response = HttpResponse("Service unavailable", content_type="text/plain", status=503)
    else:
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    return response

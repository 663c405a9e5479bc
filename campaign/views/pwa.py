"""The installable web app's service worker, served from the site's root.

A service worker controls only the paths under its own URL, so it cannot live under
/static/ and still keep a player's sheet readable offline.
"""

from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

SERVICE_WORKER = Path(settings.BASE_DIR) / "static" / "js" / "sw.js"


@require_GET
@never_cache
def service_worker(request: HttpRequest) -> HttpResponse:
    # Read each time (it is small): a new version reaches browsers without a restart.
    return HttpResponse(SERVICE_WORKER.read_bytes(), content_type="text/javascript; charset=utf-8")

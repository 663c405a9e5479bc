"""ASGI entry point: `uvicorn config.asgi:application`."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_application = get_asgi_application()

from campaign.fastpath import fast_refresh  # noqa: E402  (needs the settings loaded)

# Live board refreshes that memory can answer skip Django's request cycle (fastpath.py).
application = fast_refresh(django_application)

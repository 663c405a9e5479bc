"""Request types for the views, for the type checker only (no behaviour of their own).

django-htmx's middleware gives every request `request.htmx`; login_required lets a view
run only for a signed-in user, so its `request.user` is a User, never AnonymousUser.
Annotating a view's request with one of these says so to mypy (django-stubs types plain
HttpRequest.user as User | AnonymousUser, and knows nothing of `htmx`).
"""

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """Any request through HtmxMiddleware."""

    htmx: HtmxDetails


class AuthedHttpRequest(HtmxHttpRequest):
    """A request reaching a view behind login_required: a signed-in user."""

    user: User

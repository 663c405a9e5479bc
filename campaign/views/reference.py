"""The rules reference page (/reglas/), open to anyone: it holds no campaign data."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.http import require_GET

from ..reference import rules_page


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    """The rules reference, in the UI language; open to anyone, logged in or not."""
    page = rules_page(translation.get_language() or "es")
    return render(request, "campaign/rules.html", {"page": page})

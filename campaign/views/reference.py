"""The pages made from docs/, open to anyone (they hold no campaign data): the rules
reference (/reglas/) and the guide (/guia/)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from ..present import lang
from ..reference import RULE_COUNT, guide_page, rules_page


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    """The rules reference, in the UI language; open to anyone, logged in or not."""
    page = rules_page(lang())
    description = _(
        "The rules of Estados Alterados in Zodiac, R1 to R%(last)s, as the tracker applies them."
    ) % {"last": RULE_COUNT}
    return render(request, "campaign/rules.html", {"page": page, "description": description})


@require_GET
def guide(request: HttpRequest) -> HttpResponse:
    """The DJ's and players' guide, in the UI language; open to anyone, logged in or not."""
    page = guide_page(lang())
    description = _(
        "How to run a Zodiac campaign with the tracker: the DJ's board, the players' sheets, "
        "sessions and backups."
    )
    return render(request, "campaign/rules.html", {"page": page, "description": description})

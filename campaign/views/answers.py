"""The board's answers, shared by the views that act from it (board, party, sheet).

After a tap, a view answers with the fresh card (or the whole board) plus the pieces every
action refreshes out of band, and says which cursor and cards its answer reflects, so that
the page skips the live news it already shows (static/js/live.js).
"""

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from .. import selectors
from ..cards import board_card, board_panels, party_clock
from ..live import hub
from ..models import Campaign, Character

TEMPLATE = "campaign/board.html"
CARD = "campaign/board/_card.html"
CARDS = "campaign/board/_cards.html"
AFTER_ACTION = "campaign/board/after_action.html"


def board_context(request: HttpRequest, campaign: Campaign) -> dict:
    characters = selectors.board_characters(campaign=campaign)
    catalogue = selectors.catalogue_by_name(campaign=campaign)
    clock = party_clock(characters)
    return {
        **board_panels(campaign, characters),
        "cards": [board_card(campaign, c, catalogue, party_clock=clock) for c in characters],
        "session": selectors.open_session(campaign=campaign),
    }


def card_answer(
    request: HttpRequest,
    campaign: Campaign,
    character: Character,
    *,
    error: str = "",
    status: int = 200,
    toast: dict | None = None,
) -> HttpResponse:
    """One card; after an action, also the clock, undo, recent events and the toast (oob)."""
    characters = selectors.board_characters(campaign=campaign)
    character = next((c for c in characters if c.pk == character.pk), None) or (
        selectors.character_fresh(pk=character.pk)
    )
    context = {
        **board_panels(campaign, characters),
        "card": board_card(
            campaign,
            character,
            selectors.catalogue_by_name(campaign=campaign),
            party_clock=party_clock(characters),
        ),
        "error": error,
        "toast": toast,
    }
    html = render_to_string(CARD, context, request)
    if toast is not None:
        html += render_to_string(AFTER_ACTION, context, request)
    return HttpResponse(html, status=status)


def idempotency_key(request: HttpRequest) -> str:
    key = (request.POST.get("key") or "").replace("\x00", "").strip()
    return f"{request.user.pk}:{key}"[:100] if key else ""


def after_write(campaign: Campaign) -> None:
    """After a write, before its answer is rendered: read the cursor the answer will reflect
    (at least; live.js), and let this process's live streams render the change first."""
    campaign.refresh_from_db(fields=["change_cursor"])
    hub.settle(campaign.pk, campaign.change_cursor)


def with_cursor(
    response: HttpResponse, campaign: Campaign, *, covers: list[int] | None = None
) -> HttpResponse:
    """Tell the page the change cursor its answer reflects and the cards it holds (`covers`,
    or None for every card): the page then skips the live news of those cards up to that
    cursor (live.js), and still refreshes the others."""
    response["X-Change-Cursor"] = str(campaign.change_cursor)
    response["X-Change-Pj"] = "all" if covers is None else " ".join(map(str, covers))
    return response

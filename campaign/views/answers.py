"""The board's answers, shared by the views that act from it (board, party, sheet).

After a tap, a view answers with the fresh card (or the whole board) plus the pieces every
action refreshes out of band, and says which cursor and cards its answer reflects, so that
the page skips the live news it already shows (static/js/live/answers.js).
"""

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from .. import selectors
from ..limits import RECAP_MAX
from ..live import hub
from ..models import Campaign, Character, StateEvent
from ..present import board as present_board
from ..present.events import event_summary

TEMPLATE = "campaign/board.html"
CARD = "campaign/board/_card.html"
CARDS = "campaign/board/_cards.html"
AFTER_ACTION = "campaign/board/after_action.html"
AFTER_CARD = "campaign/board/after_card.html"


def board_context(request: HttpRequest, campaign: Campaign) -> dict:
    """The whole board's context (the session bar's recap limit with it)."""
    return present_board.page(selectors.board_view(campaign=campaign)) | {"recap_max": RECAP_MAX}


def card_answer(
    request: HttpRequest,
    campaign: Campaign,
    character: Character,
    *,
    error: str = "",
    status: int = 200,
    toast: dict | None = None,
) -> HttpResponse:
    """One card; after an action, also what it changed around the card (oob): the clock, the
    fight, undo, the toast, the recent events and the turn bar, not the whole clock bar (the
    page then swaps a few dozen elements rather than a few hundred)."""
    view = selectors.board_view(campaign=campaign, session=False)
    character = next((c for c in view.characters if c.pk == character.pk), None) or (
        selectors.character_fresh(pk=character.pk)
    )
    context = {
        **present_board.panels(view),
        "card": present_board.card(view, character),
        "error": error,
        "toast": toast,
    }
    html = render_to_string(CARD, context, request)
    if toast is not None:
        html += render_to_string(AFTER_CARD, context, request)
    return HttpResponse(html, status=status)


def idempotency_key(request: HttpRequest) -> str:
    key = (request.POST.get("key") or "").replace("\x00", "").strip()
    return f"{request.user.pk}:{key}"[:100] if key else ""


def after_write(campaign: Campaign) -> None:
    """After a write, before its answer is rendered: read the cursor the answer will reflect
    (at least; static/js/live/answers.js), and let this process's live streams render the
    change first."""
    campaign.refresh_from_db(fields=["change_cursor"])
    hub.settle(campaign.pk, campaign.change_cursor)


def with_cursor(
    response: HttpResponse, campaign: Campaign, *, covers: list[int] | None = None
) -> HttpResponse:
    """Tell the page the change cursor its answer reflects and the cards it holds (`covers`,
    or None for every card): the page then skips the live news of those cards up to that
    cursor (static/js/live/answers.js), and still refreshes the others."""
    response["X-Change-Cursor"] = str(campaign.change_cursor)
    response["X-Change-Pj"] = "all" if covers is None else " ".join(map(str, covers))
    return response


def summaries(records: list[StateEvent], rolls: list | None = None) -> list[dict]:
    """The toasts of the events a tap recorded (with the dice it rolled, when `rolls`),
    reading the campaign's roster once if one of them is campaign-wide."""
    roster = None
    if any(r.character_id is None for r in records):
        roster = selectors.roster(campaign_id=records[0].campaign_id)
    rolls = rolls or [None] * len(records)
    return [
        event_summary(r, roll=roll, roster=roster) for r, roll in zip(records, rolls, strict=True)
    ]

"""The live channel's two doors: the event stream, and polling where SSE cannot pass.

Both say only which cards changed (PJ ids, or all); each page then fetches its own
rendering, so what a viewer may see is decided by the views that render it. A player hears
only of their own PJ and of campaign-wide changes (of every PJ when the campaign shows
players the party: PJ ids are no secret there); anyone else gets 404.
"""

import json
import re
from collections.abc import AsyncIterator

from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    JsonResponse,
    StreamingHttpResponse,
)
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .. import live
from ..access import membership_for
from ..models import Membership

CURSOR = re.compile(r"[0-9]{1,18}")


def _cursor(value: str) -> int:
    """A change cursor from the request; ValueError unless it is a plain whole number."""
    if not CURSOR.fullmatch(value):
        raise ValueError(value)
    return int(value)


def _bad_cursor() -> HttpResponse:
    return HttpResponseBadRequest(
        _("“since” must be a whole number: the last change cursor the page saw."),
        content_type="text/plain; charset=utf-8",
    )


def _player(membership: Membership) -> int | None:
    """None for whoever hears of every change (the DJ, and players of a campaign that shows
    them the party); otherwise the player's user id: they hear of their own PJ only."""
    if membership.role == Membership.Role.DJ or membership.campaign.players_see_party:
        return None
    return membership.user_id


def _message(changes: list[live.Change]) -> str:
    data = live.summary(changes)
    return f"id: {data['cursor']}\nevent: change\ndata: {json.dumps(data)}\n\n"


@require_GET
async def stream(request: HttpRequest, slug: str) -> HttpResponse:
    """Server-Sent Events: one `change` message per batch of commits, its id the cursor.

    Starts after the Last-Event-ID header (a reconnecting EventSource), else `?since=`,
    else the campaign's current cursor (nothing old is sent).
    """
    # On the hub's thread and connection: a stream holds no connection of its own.
    membership = await live.hub().query(lambda: membership_for(user=request.user, slug=slug))
    campaign = membership.campaign
    given = request.headers.get("Last-Event-ID") or request.GET.get("since")
    try:
        since = campaign.change_cursor if given is None else _cursor(given)
    except ValueError:
        return _bad_cursor()

    async def messages() -> AsyncIterator[str]:
        yield "retry: 1000\n\n"
        start = since
        if start > campaign.change_cursor:  # a cursor from before a database restore
            yield _message([live.Change(campaign.change_cursor, None)])
            start = campaign.change_cursor
        player = _player(membership)
        changes = live.hub().follow(
            campaign.pk, since=start, current=campaign.change_cursor, player=player
        )
        async for batch in changes:
            if batch and membership.role != Membership.Role.DJ and not await _still(player):
                # Removed from the campaign, or the party option changed what they hear:
                # one last word tells the page to ask again (a 404 now, or a new stream).
                yield _message([live.Change(batch[-1].cursor, None)])
                return
            yield _message(batch) if batch else ": ping\n\n"

    async def _still(player: int | None) -> bool:
        """Whether this player's stream may go on hearing what it was set up to hear."""

        def now() -> int | None | bool:
            try:
                return _player(membership_for(user=request.user, slug=slug))
            except Http404:
                return False

        return await live.hub().query(now) == player

    response = StreamingHttpResponse(messages(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once
    return response


@require_GET
@never_cache
def changes(request: HttpRequest, slug: str) -> HttpResponse:
    """Polling: 204 when nothing this viewer sees changed after `?since=`, else the summary."""
    membership = membership_for(user=request.user, slug=slug)
    try:
        since = _cursor(request.GET.get("since", ""))
    except ValueError:
        return _bad_cursor()
    player = _player(membership)
    found = live.changes_between(
        campaign_id=membership.campaign_id, after=since, upto=membership.campaign.change_cursor
    )
    seen = [change for change in found if live.visible(change, player=player)]
    if not seen:
        return HttpResponse(status=204)
    return JsonResponse(live.summary(seen))

"""The rendered parts of a change, the same for every viewer of one kind.

A part is one element a live page changes in place, named by what it stands for:

- the DJ's board: ("card", pk) a PJ's card, ("panels",) the clock, undo and recent events;
- a player's sheet: ("own", pk) the PJ's own sheet card, ("party", pk) another PJ as the
  party sees it, ("status",) the sheet's clock line;
- ("pks",) the PJ in play as [pk, player id] pairs, for a change of every card.

Parts carry no CSRF token and no idempotency key (`common` renderings): htmx sends the
token as a header and live.js keys each form. So one rendering serves every page of its
kind: the hub renders each part once per change for all its streams, and the refresh views
(a page that fetches: polling, a DJ looking at a sheet) render them the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.html import format_html

from .. import selectors
from ..models import Campaign
from ..present import board as present_board
from ..present import sheet as present_sheet
from ..present.card import sheet_card
from ..present.figures import clock_parts


def key_name(key: tuple) -> str:
    """A part's name in a live message: "card:12", "panels"."""
    return ":".join(map(str, key))


def render(campaign_id: int, lang: str, keys: Sequence[tuple]) -> dict[tuple, object]:
    """Render `keys` of campaign `campaign_id` as it is now, in `lang`: {key: html}.

    A PJ that is no longer in play renders as an element that deletes its card (board and
    party), and as None for its own sheet (that page is gone: it asks and gets a 404).
    """
    with translation.override(lang):
        campaign = Campaign.objects.get(pk=campaign_id)
        characters = selectors.board_characters(campaign=campaign)
        in_play = {c.pk: c for c in characters}
        loaded: dict[str, object] = {}

        def board() -> selectors.BoardView:
            if "board" not in loaded:
                loaded["board"] = selectors.board_view(
                    campaign=campaign, session=False, characters=characters
                )
            return loaded["board"]

        def panels() -> dict:
            if "panels" not in loaded:
                loaded["panels"] = present_board.panels(board())
            return loaded["panels"]

        def catalogue() -> dict:
            if "catalogue" not in loaded:
                read = loaded.get("board")
                loaded["catalogue"] = (
                    read.catalogue
                    if isinstance(read, selectors.BoardView)
                    else selectors.catalogue_by_name(campaign=campaign)
                )
            return loaded["catalogue"]

        def now() -> selectors.PartyNow:
            """What every sheet of this change shares: the party's clock, the fight."""
            if "now" not in loaded:
                loaded["now"] = selectors.party_now(campaign=campaign)
            return loaded["now"]

        def gone(pk: int) -> str:
            return format_html('<div id="pj-{}" hx-swap-oob="delete"></div>', pk)

        def player_card(pk: int, partial: str) -> str:
            context: dict[str, object] = {"campaign": campaign, "common": True}
            if partial == "_card":
                context["card"] = sheet_card(in_play[pk], catalogue(), party=now().clock)
                context["turn"] = present_sheet.turn_for(pk, now())
            else:
                context["card"] = present_sheet.party_card(in_play[pk], catalogue())
            return render_to_string(f"campaign/sheet/{partial}.html", context)

        found: dict[tuple, object] = {}
        for key in keys:
            kind, pk = key[0], (key[1] if len(key) > 1 else None)
            if kind == "pks":
                found[key] = [[c.pk, c.player_id] for c in characters]
            elif kind == "card":
                if pk not in in_play:
                    found[key] = gone(pk)
                    continue
                context = {
                    **panels(),
                    "card": present_board.card(board(), in_play[pk]),
                    "common": True,
                }
                found[key] = render_to_string("campaign/board/_card.html", context)
            elif kind == "panels":
                context = {**panels(), "common": True}
                found[key] = render_to_string("campaign/board/live_panels.html", context)
            elif kind == "own":
                found[key] = player_card(pk, "_card") if pk in in_play else None
            elif kind == "party":
                found[key] = player_card(pk, "_party_card") if pk in in_play else gone(pk)
            elif kind == "status":
                context = {
                    "campaign": campaign,
                    "clock": clock_parts(now().clock),
                    "round": now().round,
                    "updated": timezone.now(),
                }
                found[key] = render_to_string("campaign/sheet/_status.html", context)
            else:
                raise ValueError(f"unknown part {key!r}")
        return found


def dj_keys(pks: Sequence[int]) -> list[tuple]:
    """What a DJ's board shows of a change of the cards `pks`."""
    return [*(("card", pk) for pk in pks), ("panels",)]


def sheet_keys(*, own: Sequence[int], party: Sequence[int]) -> list[tuple]:
    """What a sheet shows of a change: its own PJ's cards, the party's, the clock line."""
    return [*(("own", pk) for pk in own), *(("party", pk) for pk in party), ("status",)]

"""The rendered parts of a change, the same for every viewer of one kind.

A part is one element a live page changes in place, named by what it stands for:

- the DJ's board: ("card", pk) a PJ's card, ("panels",) the clock, fight, undo and recent
  events;
- a player's sheet: ("own", pk) the PJ's own sheet card, ("party", pk) another PJ as the
  party sees it, ("status",) the sheet's clock line;
- ("pks",) the PJ in play as [pk, player id] pairs, for a change of every card;
- ("pnj",) the PNJ in play, as pks (the board's PNJ cards are ("card", pk) too);
- ("foes",) the sheet's view of the PNJ in the fight, as players may see them
  (campaign.reveal): the same for every player.

Parts carry no CSRF token and no idempotency key (`common` renderings): htmx sends the
token as a header and static/js/live/taps.js keys each form. So one rendering serves every
page of its kind: the hub renders each part once per change for all its streams, and the
refresh views (a page that fetches: polling, a DJ looking at a sheet) render them the same
way.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

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


class _Reads:
    """What one render reads from the database, each thing once and only when a part needs
    it: the PJ and PNJ in play (one query), the board's data, the party's moment."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign

    @cached_property
    def roster(self) -> tuple[list, list]:
        return selectors.board_roster(campaign=self.campaign)

    @cached_property
    def characters(self) -> list:
        return self.roster[0]

    @cached_property
    def in_play(self) -> dict:
        return {c.pk: c for c in self.characters}

    @cached_property
    def pnj(self) -> dict:
        return {c.pk: c for c in self.roster[1]}

    @cached_property
    def board(self) -> selectors.BoardView:
        return selectors.board_view(
            campaign=self.campaign,
            session=False,
            characters=self.characters,
            pnj=list(self.pnj.values()),
        )

    @cached_property
    def panels(self) -> dict:
        return present_board.panels(self.board)

    @cached_property
    def catalogue(self) -> dict:
        if "board" in self.__dict__:  # read already
            return self.board.catalogue
        return selectors.catalogue_by_name(campaign=self.campaign)

    @cached_property
    def now(self) -> selectors.PartyNow:
        """What every sheet of this change shares: the party's clock, the fight."""
        return selectors.party_now(campaign=self.campaign)


def _gone(pk: int) -> str:
    return format_html('<div id="pj-{}" hx-swap-oob="delete"></div>', pk)


def _board_card(reads: _Reads, pk: int) -> str:
    character = reads.in_play.get(pk) or reads.pnj.get(pk)
    if character is None:
        return _gone(pk)
    context = {
        **reads.panels,
        "card": present_board.card(reads.board, character),
        "common": True,
    }
    return render_to_string("campaign/board/_card.html", context)


def _own_card(reads: _Reads, pk: int) -> str | None:
    if pk not in reads.in_play:
        return None
    context = {
        "campaign": reads.campaign,
        "common": True,
        "card": sheet_card(reads.in_play[pk], reads.catalogue, party=reads.now.clock),
        "turn": present_sheet.turn_for(pk, reads.now),
    }
    return render_to_string("campaign/sheet/_card.html", context)


def _party_card(reads: _Reads, pk: int) -> str:
    if pk not in reads.in_play:
        return _gone(pk)
    context = {
        "campaign": reads.campaign,
        "common": True,
        "card": present_sheet.party_card(reads.in_play[pk], reads.catalogue),
    }
    return render_to_string("campaign/sheet/_party_card.html", context)


def _part(reads: _Reads, key: tuple) -> object:
    kind, pk = key[0], (key[1] if len(key) > 1 else None)
    if kind == "pks":
        return [[c.pk, c.player_id] for c in reads.characters]
    if kind == "pnj":
        return sorted(reads.pnj)
    if kind == "foes":
        context = {
            "campaign": reads.campaign,
            "foes": present_sheet.foes(reads.now, reads.catalogue),
        }
        return render_to_string("campaign/sheet/_foes.html", context)
    if kind == "panels":
        context = {**reads.panels, "common": True}
        return render_to_string("campaign/board/live_panels.html", context)
    if kind == "status":
        context = {
            "campaign": reads.campaign,
            "clock": clock_parts(reads.now.clock),
            "round": reads.now.round,
            "in_fight": reads.now.fight is not None,
            "updated": timezone.now(),
        }
        return render_to_string("campaign/sheet/_status.html", context)
    if isinstance(pk, int):
        if kind == "card":
            return _board_card(reads, pk)
        if kind == "own":
            return _own_card(reads, pk)
        if kind == "party":
            return _party_card(reads, pk)
    raise ValueError(f"unknown part {key!r}")


def render(campaign_id: int, lang: str, keys: Sequence[tuple]) -> dict[tuple, object]:
    """Render `keys` of campaign `campaign_id` as it is now, in `lang`: {key: html}.

    A PJ that is no longer in play renders as an element that deletes its card (board and
    party), and as None for its own sheet (that page is gone: it asks and gets a 404).
    """
    with translation.override(lang):
        reads = _Reads(Campaign.objects.get(pk=campaign_id))
        return {key: _part(reads, key) for key in keys}


def dj_keys(pks: Sequence[int]) -> list[tuple]:
    """What a DJ's board shows of a change of the cards `pks`."""
    return [*(("card", pk) for pk in pks), ("panels",)]


def sheet_keys(*, own: Sequence[int], party: Sequence[int]) -> list[tuple]:
    """What a sheet shows of a change: its own PJ's cards, the party's, the clock line."""
    return [*(("own", pk) for pk in own), *(("party", pk) for pk in party), ("status",)]

"""Reads of the DJ's PNJ and Plantillas (campaign.selectors re-exports them)."""

import re

from django.db.models import Count, Q, QuerySet

from .models import Campaign, Character, EventSnapshot, GameSession, Template


def natural_key(name: str) -> tuple:
    """A name's sort key with its numbers as numbers: Bandido 2 before Bandido 10."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part.casefold())
        for part in re.split(r"(\d+)", name)
        if part
    )


def board_pnj(*, campaign: Campaign) -> list[Character]:
    """The PNJ in play (archived ones left out), with snapshot and template: enemies first,
    then allies, each by template (copies together) and name."""
    pnj = campaign.characters.filter(kind=Character.Kind.PNJ, archived_at__isnull=True)
    return board_order(list(pnj.select_related("snapshot", "template")))


def board_order(pnj: list[Character]) -> list[Character]:
    """PNJ (read with their template) as the board shows them: enemies first, then allies,
    each by template (copies together) and name."""
    return sorted(
        pnj,
        key=lambda c: (
            c.side != Character.Side.ENEMIGO,
            natural_key(c.template.name if c.template else c.name),
            natural_key(c.name),
        ),
    )


def pnj_list(*, campaign: Campaign, archived: bool = False) -> list[Character]:
    """A campaign's PNJ, the active ones or the archived ones, as the board orders them."""
    pnj = campaign.characters.filter(kind=Character.Kind.PNJ, archived_at__isnull=not archived)
    found = list(pnj.select_related("template"))
    found.sort(key=lambda c: (c.side != Character.Side.ENEMIGO, natural_key(c.name)))
    return found


def template_list(*, campaign: Campaign) -> list[Template]:
    """The campaign's Plantillas by name, each with how many PNJ in play were made from it."""
    return list(
        campaign.templates.annotate(
            in_play=Count("copies", filter=Q(copies__archived_at__isnull=True))
        ).order_by("name")
    )


def template_of(*, campaign: Campaign, pk: int) -> Template | None:
    return campaign.templates.filter(pk=pk).first()


def in_party() -> Q:
    """Who the party's time and Descanso reach (on Character): the PJ, and the allies the
    DJ put in the party. Other PNJ live on their own clock, moved by their fights."""
    return Q(kind=Character.Kind.PJ) | Q(kind=Character.Kind.PNJ, in_party=True)


def party_members(*, campaign: Campaign) -> QuerySet[Character]:
    """The party in play (`in_party`, not archived), by pk."""
    return campaign.characters.filter(in_party(), archived_at__isnull=True).order_by("pk")


def party_ids(*, campaign: Campaign) -> set[int]:
    """The pk of the party in play (`party_members`): whom a party's time reaches."""
    return set(party_members(campaign=campaign).values_list("pk", flat=True))


def session_pnj(*, session: GameSession) -> QuerySet[Character]:
    """The PNJ that took part in a session: those an event of it (not voided) reached, other
    than being made or given scores; archived since or not."""
    reached = (
        EventSnapshot.objects.filter(event__session=session, event__void_at__isnull=True)
        .exclude(event__event__kind__in=("start", "attributes"))
        .values("character_id")
    )
    return session.campaign.characters.filter(kind=Character.Kind.PNJ, pk__in=reached)

"""Reads. They read snapshots and never fold the whole log (replays are audit.py's)."""

from datetime import datetime

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

import rules

from .models import Campaign, Character, CharacterSnapshot, EventSnapshot, Membership, StateEvent


def membership_list_for_user(*, user: AbstractBaseUser) -> QuerySet[Membership]:
    """The campaigns a user belongs to, with the role in each, by campaign name."""
    if not user.is_authenticated:
        return Membership.objects.none()
    return (
        Membership.objects.filter(user=user)
        .select_related("campaign")
        .order_by("campaign__name", "campaign__pk")
    )


def character_log(*, character: Character, include_void: bool = False) -> QuerySet[StateEvent]:
    """A PJ's log in seq order: its own events and the campaign-wide ones since it joined."""
    events = StateEvent.objects.filter(campaign_id=character.campaign_id).filter(
        Q(character=character) | Q(character__isnull=True, seq__gt=character.joined_seq)
    )
    if not include_void:
        events = events.filter(void_at__isnull=True)
    return events.order_by("seq")


def character_state(*, character: Character) -> dict:
    """A PJ's current state (SPEC §8 keys only)."""
    snapshot = CharacterSnapshot.objects.only("state").get(character=character)
    return rules.public_state(snapshot.state)


def character_states(*, campaign: Campaign) -> list[tuple[Character, dict]]:
    """Every PJ of a campaign with its current state, by name."""
    characters = campaign.characters.select_related("snapshot").order_by("name", "pk")
    return [(c, rules.public_state(c.snapshot.state)) for c in characters]


def campaign_clock(*, campaign: Campaign) -> int:
    """The campaign's game time in seconds: the furthest any of its PJ has got."""
    clocks = CharacterSnapshot.objects.filter(character__campaign=campaign).values_list(
        "state__clock", flat=True
    )
    return max((c for c in clocks if isinstance(c, int)), default=0)


def state_at(
    *,
    character: Character,
    event: StateEvent | None = None,
    at: datetime | None = None,
) -> dict:
    """A PJ's state right after `event` (any event of its campaign) or at wall-clock `at`.

    Voided events count as never recorded; before the PJ's first event it has the
    engine's initial state.
    """
    if (event is None) == (at is None):
        raise ValidationError(_("Give either an event or a moment, not both."))
    snapshots = EventSnapshot.objects.filter(character=character, event__void_at__isnull=True)
    if event is not None:
        if event.campaign_id != character.campaign_id:
            raise ValidationError(_("That event belongs to another campaign."))
        snapshots = snapshots.filter(event__seq__lte=event.seq)
    else:
        snapshots = snapshots.filter(event__created_at__lte=at)
    latest = snapshots.order_by("-event__seq").only("state").first()
    return rules.public_state(latest.state if latest else rules.initial_state())

"""Reads. They read snapshots and never fold the whole log (replays are history.replay's)."""

from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

import rules

from . import reminders, reveal, turn_order
from .fight_reads import current_round as current_round
from .fight_reads import fight_and_round as fight_and_round
from .fight_reads import fight_at as fight_at
from .fight_reads import fight_last as fight_last
from .fight_reads import fight_now as fight_now
from .fight_reads import still_in_emotion_grave
from .models import (
    Campaign,
    CatalogueEntry,
    Character,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    Invitation,
    Membership,
    StateEvent,
    Template,
)
from .pnj_reads import board_order
from .pnj_reads import board_pnj as board_pnj
from .pnj_reads import in_party as in_party
from .pnj_reads import natural_key as natural_key
from .pnj_reads import party_ids as party_ids
from .pnj_reads import party_members as party_members
from .pnj_reads import pnj_list as pnj_list
from .pnj_reads import session_pnj as session_pnj
from .pnj_reads import template_list as template_list
from .pnj_reads import template_of as template_of
from .tap_reads import event_by_key as event_by_key
from .tap_reads import latest_event as latest_event
from .tap_reads import pnj_made as pnj_made
from .tap_reads import tap_base as tap_base
from .tap_reads import tap_of as tap_of
from .tap_reads import undoable as undoable


def played_characters(*, user: User | AnonymousUser) -> dict[int, list[Character]]:
    """The PJ in play a user plays, by campaign id, by name."""
    played: dict[int, list[Character]] = {}
    if not user.is_authenticated:
        return played
    for character in Character.objects.filter(player=user, archived_at__isnull=True).order_by(
        "name", "pk"
    ):
        played.setdefault(character.campaign_id, []).append(character)
    return played


def membership_list_for_user(*, user: User | AnonymousUser) -> QuerySet[Membership]:
    """The campaigns a user belongs to, with the role in each, by campaign name."""
    if not user.is_authenticated:
        return Membership.objects.none()
    return (
        Membership.objects.filter(user=user)
        .select_related("campaign")
        .order_by("campaign__name", "campaign__pk")
    )


def in_log_of(character: Character) -> Q:
    """The one definition of a PJ's log: its own events and the campaign-wide ones that
    reached it, which name it in their effects (not those from before it joined, while it
    was archived, or that the DJ left it out of). Its state, its history filter, the void
    and the replay all read this."""
    return Q(character=character) | Q(character__isnull=True, effects__has_key=str(character.pk))


def characters_touched(*, event: StateEvent) -> list[Character]:
    """The PJ whose log holds `event` (`in_log_of`, read the other way), by pk."""
    if event.character is not None:
        return [event.character]
    reached = [int(pk) for pk in (event.effects or {}) if str(pk).isdigit()]
    touched = Character.objects.filter(campaign_id=event.campaign_id, pk__in=reached)
    return list(touched.order_by("pk"))


def character_log(*, character: Character, include_void: bool = False) -> QuerySet[StateEvent]:
    """A PJ's log in seq order (`in_log_of`)."""
    events = StateEvent.objects.filter(campaign_id=character.campaign_id).filter(
        in_log_of(character)
    )
    if not include_void:
        events = events.filter(void_at__isnull=True)
    return events.order_by("seq")


def character_state(*, character: Character) -> dict:
    """A PJ's current state (rules/README.md §8 keys only)."""
    snapshot = CharacterSnapshot.objects.only("state").get(character=character)
    return rules.public_state(snapshot.state)


def character_states(*, campaign: Campaign) -> list[tuple[Character, dict]]:
    """Every PJ of a campaign with its current state, by name."""
    characters = campaign.characters.select_related("snapshot").order_by("name", "pk")
    return [(c, rules.public_state(c.snapshot.state)) for c in characters]


def campaign_clock(*, campaign: Campaign) -> int:
    """The party's game time in seconds: the furthest any of the party in play has got (any
    PJ, when every one is archived)."""
    snapshots = CharacterSnapshot.objects.filter(character__campaign=campaign).filter(
        character__kind=Character.Kind.PJ
    )
    in_play = CharacterSnapshot.objects.filter(
        character__campaign=campaign, character__archived_at__isnull=True
    ).filter(Q(character__kind=Character.Kind.PJ) | Q(character__in_party=True))
    clocks = list(in_play.values_list("state__clock", flat=True))
    if not clocks:  # one query, and a second only when nobody of the party is in play
        clocks = list(snapshots.values_list("state__clock", flat=True))
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
    if event is not None:
        if event.campaign_id != character.campaign_id:
            raise ValidationError(_("That event belongs to another campaign."))
        latest = snapshot_before(character_id=character.pk, seq=event.seq + 1)
    else:
        latest = (
            EventSnapshot.objects.filter(
                character=character, event__void_at__isnull=True, event__created_at__lte=at
            )
            .order_by("-seq")
            .only("state")
            .first()
        )
    return rules.public_state(latest.state if latest else rules.initial_state())


def snapshot_before(*, character_id: int, seq: int) -> EventSnapshot | None:
    """A PJ's snapshot after its last non-void event before #`seq` (None: there is none).

    Read by walking the (character, seq) index back from `seq`: as fast at the end of a
    years-long log as at its start.
    """
    return (
        EventSnapshot.objects.filter(
            character_id=character_id, seq__lt=seq, event__void_at__isnull=True
        )
        .order_by("-seq")
        .only("state", "seq")
        .first()
    )


def board_characters(*, campaign: Campaign) -> list[Character]:
    """The PJ on the DJ's board (archived ones left out), with snapshot and player, by name."""
    return list(
        campaign.characters.filter(kind=Character.Kind.PJ, archived_at__isnull=True)
        .select_related("snapshot", "player")
        .order_by("name", "pk")
    )


def board_roster(*, campaign: Campaign) -> tuple[list[Character], list[Character]]:
    """The PJ and the PNJ in play in one read: as board_characters and board_pnj give them."""
    found = (
        campaign.characters.filter(archived_at__isnull=True)
        .select_related("snapshot", "player", "template")
        .order_by("name", "pk")
    )
    pj: list[Character] = []
    pnj: list[Character] = []
    for c in found:
        (pnj if c.is_pnj else pj).append(c)
    return pj, board_order(pnj)


def catalogue_by_name(*, campaign: Campaign) -> dict[str, CatalogueEntry]:
    """The campaign's catalogue keyed by the names events and states use."""
    return {entry.name: entry for entry in campaign.catalogue.all()}


def open_session(*, campaign: Campaign) -> GameSession | None:
    """The campaign's open game session (the one events recorded now belong to), or None."""
    return campaign.sessions.filter(ended_at__isnull=True).order_by("-number").first()


def next_session_number(*, campaign: Campaign) -> int:
    """The number the campaign's next session takes."""
    last = campaign.sessions.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1


RECENT = 15  # the latest events the board lists


def recent_events(*, campaign: Campaign, limit: int = RECENT) -> list[StateEvent]:
    """The campaign's latest events, newest first, voided ones included (marked), with
    their PJ, who voided them and their session."""
    return list(
        StateEvent.objects.filter(campaign=campaign)
        .select_related("character", "void_by", "session")
        .order_by("-seq")[:limit]
    )


def round_reach(*, campaign: Campaign, fight: turn_order.Fight | None) -> QuerySet[Character]:
    """Whom a campaign-wide round reaches: the party in play and, in `fight` (the one going
    on), its combatants in play (PNJ on their own clock), by pk."""
    reached = Q(pk__in=party_members(campaign=campaign).values("pk"))
    if fight is not None:
        reached |= Q(pk__in=fight.fighting)
    return campaign.characters.filter(reached, archived_at__isnull=True).order_by("pk")


def turn_end_missing(*, campaign: Campaign) -> list[Character]:
    """PJ, and PNJ in the fight going on, in Shock grave whose turn end was not recorded
    since the last round passed."""
    now = fight_now(campaign=campaign)
    fighting = {pk for s in now.order for pk in s.members} if now is not None else set()
    in_shock = [
        c
        for c in campaign.characters.filter(archived_at__isnull=True)
        .filter(Q(kind=Character.Kind.PJ) | Q(pk__in=fighting))
        .select_related("snapshot")
        .order_by("name", "pk")
        if "grave" in c.snapshot.state["marks"]["shock"]
    ]
    if not in_shock:
        return []
    last_time = (
        StateEvent.objects.filter(
            campaign=campaign, character__isnull=True, void_at__isnull=True, event__kind="time"
        )
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    ) or 0
    done = set(
        StateEvent.objects.filter(
            campaign=campaign,
            character__in=in_shock,
            seq__gt=last_time,
            void_at__isnull=True,
            event__kind="turn_end",
        ).values_list("character_id", flat=True)
    )
    return [c for c in in_shock if c.pk not in done]


def campaign_options_locked(*, campaign: Campaign) -> bool:
    """True once the log holds a game event (anything but each PJ's start and scores).

    From then on the campaign options would change how the recorded log reads.
    """
    return (
        StateEvent.objects.filter(campaign=campaign, void_at__isnull=True)
        .exclude(event__kind__in=["start", "attributes"])
        .exists()
    )


def character_list(*, campaign: Campaign, archived: bool = False) -> list[Character]:
    """A campaign's PJ with their players, by name: the active ones or the archived ones."""
    return list(
        campaign.characters.filter(kind=Character.Kind.PJ, archived_at__isnull=not archived)
        .select_related("player")
        .order_by("name", "pk")
    )


def player_choices(*, campaign: Campaign) -> QuerySet:
    """The users who play in a campaign (its DJ left out), by username."""
    return (
        get_user_model()
        .objects.filter(memberships__campaign=campaign, memberships__role=Membership.Role.PLAYER)
        .order_by("username")
    )


def catalogue_by_kind(*, campaign: Campaign) -> list[tuple[str, str, list[CatalogueEntry]]]:
    """The catalogue grouped by kind: (kind, label, entries by name), every kind listed."""
    entries = list(campaign.catalogue.order_by("name"))
    return [
        (kind, str(label), [e for e in entries if e.kind == kind])
        for kind, label in CatalogueEntry.Kind.choices
    ]


def character_fresh(*, pk: int) -> Character:
    """A PJ read anew, with its snapshot and player (after a write changed it)."""
    return Character.objects.select_related("snapshot", "player").get(pk=pk)


def characters_played_by(*, campaign: Campaign, user: User) -> list[Character]:
    """The PJ of `campaign` that `user` plays."""
    return list(Character.objects.filter(campaign=campaign, player=user))


def session_by_number(*, campaign: Campaign, number: int) -> GameSession | None:
    return GameSession.objects.filter(campaign=campaign, number=number).first()


def event_by_seq(*, campaign: Campaign, seq: int) -> StateEvent | None:
    """One event of the campaign's log by its number, with its PJ."""
    return StateEvent.objects.filter(campaign=campaign, seq=seq).select_related("character").first()


def catalogue_entry(*, campaign: Campaign, pk: int) -> CatalogueEntry | None:
    return CatalogueEntry.objects.filter(campaign=campaign, pk=pk).first()


def pending_invitations(*, campaign: Campaign) -> dict[int, Invitation]:
    """The campaign's invitations still open, by the PJ they are for (the latest wins)."""
    open_ones = Invitation.objects.filter(
        campaign=campaign, used_at__isnull=True, revoked_at__isnull=True
    ).order_by("created_at")
    return {inv.character_id: inv for inv in open_ones if inv.is_pending}


def in_play_ids(*, campaign: Campaign) -> set[int]:
    """The pk of every PJ and PNJ in play (not archived): who may be in a fight's order."""
    return set(campaign.characters.filter(archived_at__isnull=True).values_list("pk", flat=True))


def character_names(*, campaign: Campaign) -> dict[int, str]:
    """Every PJ's name by pk, archived ones included (the log names them all)."""
    return dict(Character.objects.filter(campaign=campaign).values_list("pk", "name"))


def characters_with_snapshots(*, campaign: Campaign) -> list[Character]:
    """Every PJ of the campaign, archived ones included, with its current state."""
    return list(campaign.characters.select_related("snapshot"))


def characters_showing(*, campaign: Campaign, name: str) -> list[Character]:
    """The PJ and PNJ in play whose card shows catalogue entry `name`: an E.Esp of that
    name, or an Afección from that source (the cards a change of its text changes)."""
    return [
        c
        for c in campaign.characters.filter(archived_at__isnull=True).select_related("snapshot")
        if name in c.snapshot.state["specials"] or name in c.snapshot.state["afflictions"]
    ]


def sessions_newest_first(
    *, campaign: Campaign, before: int | None = None, count: int = 10
) -> tuple[list[GameSession], bool]:
    """Up to `count` sessions, newest first (those numbered below `before`, when given),
    and whether older ones remain. Without their sheets: a list need not load them."""
    sessions = campaign.sessions.order_by("-number").only(
        "campaign_id", "number", "title", "started_at", "ended_at"
    )
    if before is not None:
        sessions = sessions.filter(number__lt=before)
    found = list(sessions[: count + 1])
    return found[:count], len(found) > count


def plays_only_for(*, user, dj) -> bool:
    """Whether every campaign `user` belongs to is run by `dj`, as a player in each."""
    memberships = list(Membership.objects.filter(user=user).values_list("role", "campaign_id"))
    if not memberships or any(role != Membership.Role.PLAYER for role, _ in memberships):
        return False
    djs = Membership.objects.filter(
        campaign_id__in=[c for _, c in memberships], role=Membership.Role.DJ
    ).values_list("campaign_id", "user_id")
    run_by = dict(djs)
    return all(run_by.get(c) == dj.pk for _, c in memberships)


def only_sheet_of(*, user) -> Character | None:
    """The one PJ in play of a user who plays exactly one and runs no campaign, else None
    (where a player with one PJ lands after logging in)."""
    if Membership.objects.filter(user=user, role=Membership.Role.DJ).exists():
        return None
    played = list(
        Character.objects.filter(player=user, archived_at__isnull=True)
        .select_related("campaign")
        .order_by("pk")[:2]
    )
    return played[0] if len(played) == 1 else None


def character_of(*, campaign: Campaign, pk: int) -> Character | None:
    """A PJ of the campaign (archived or not) with its current state, or None."""
    return Character.objects.select_related("snapshot").filter(campaign=campaign, pk=pk).first()


def invitation_of(*, campaign: Campaign, pk: int) -> Invitation | None:
    """One of the campaign's invitations, with the PJ it is for, or None."""
    return Invitation.objects.select_related("character").filter(campaign=campaign, pk=pk).first()


# -- screens: everything one screen shows, read at once, for campaign.present -------------


@dataclass
class BoardView:
    """What the DJ's board shows: the PJ in play (by name, with their states), the
    catalogue, the latest events, the fight going on, the round, the open session, and the
    name of every PJ those mention."""

    campaign: Campaign
    characters: list[Character]
    catalogue: dict[str, CatalogueEntry]
    recent: list[StateEvent]
    fight: turn_order.Fight | None
    round: int
    names: dict[int, str]
    session: GameSession | None = None
    # The PNJ in play (board_pnj), in their own section of the board.
    pnj: list[Character] = field(default_factory=list)
    templates: list[Template] = field(default_factory=list)
    reminders: list = field(default_factory=list)  # the DJ's notes still to come
    # What Deshacer takes back (tap_reads.latest_event), found among `recent` when it can be.
    latest: StateEvent | None = None
    # The fight that has just ended: who fought in it and is still in an Emoción grave.
    after_fight: list[Character] = field(default_factory=list)


def board_view(
    *,
    campaign: Campaign,
    session: bool = True,
    characters: list[Character] | None = None,
    pnj: list[Character] | None = None,
) -> BoardView:
    """The board's data (`session`: whether to read the open session and the Plantillas
    too; `characters`, `pnj`: the PJ and PNJ in play, when the caller has just read them)."""
    if characters is None and pnj is None:
        characters, pnj = board_roster(campaign=campaign)
    if characters is None:
        characters = board_characters(campaign=campaign)
    if pnj is None:
        pnj = board_pnj(campaign=campaign)
    recent = recent_events(campaign=campaign)
    latest = next((e for e in recent if undoable(e)), None)
    if latest is None and len(recent) == RECENT:  # none of them (a big add undone): further
        latest = latest_event(campaign=campaign)
    now, rounds = fight_and_round(campaign=campaign)
    # The names the board holds already; the database only for a PJ it does not (one
    # archived since a party event reached it, or in the fight's order).
    names = {c.pk: c.name for c in [*characters, *pnj]}
    names.update((e.character.pk, e.character.name) for e in recent if e.character is not None)
    wanted = {int(pk) for e in recent if not e.character_id for pk in e.effects or {}}
    if now is not None:
        wanted.update(now.fighting | set(now.out))
    if not wanted <= set(names):
        names = character_names(campaign=campaign)
    return BoardView(
        campaign=campaign,
        characters=characters,
        catalogue=catalogue_by_name(campaign=campaign),
        recent=recent,
        latest=latest,
        fight=now,
        round=now.round if now is not None else rounds + 1,
        names=names,
        session=open_session(campaign=campaign) if session else None,
        pnj=pnj,
        templates=list(campaign.templates.order_by("name")) if session else [],
        reminders=reminders.pinned(campaign=campaign),
        after_fight=[]
        if now is not None
        else still_in_emotion_grave(campaign=campaign, recent=recent, in_play=[*characters, *pnj]),
    )


@dataclass
class PartyNow:
    """What every sheet of a campaign shares at one moment: the party's clock, the round,
    the fight going on and (while one is on) the names players read of those in it (a PNJ
    as campaign.reveal says; one they may not see left out), and its PNJ."""

    clock: int
    round: int
    fight: turn_order.Fight | None
    names: dict[int, str] = field(default_factory=dict)
    pnj: list[Character] = field(default_factory=list)


def party_now(*, campaign: Campaign) -> PartyNow:
    now, rounds = fight_and_round(campaign=campaign)
    names: dict[int, str] = {}
    pnj: list[Character] = []
    if now is not None:
        fighting = Character.objects.filter(campaign=campaign, pk__in=now.fighting | set(now.out))
        found = {c.pk: c for c in fighting.select_related("snapshot")}
        pnj = sorted((c for c in found.values() if c.is_pnj), key=lambda c: natural_key(c.name))
        names = reveal.slot_names(now, found, {pk: c.name for pk, c in found.items()})
    return PartyNow(
        clock=campaign_clock(campaign=campaign),
        round=rounds + 1,
        fight=now,
        names=names,
        pnj=pnj,
    )


@dataclass
class SheetView:
    """What a player's sheet shows: the PJ, the party's other PJ in play (when the campaign
    lets players see them), the catalogue, and the party's moment."""

    campaign: Campaign
    character: Character
    party: list[Character]
    catalogue: dict[str, CatalogueEntry]
    now: PartyNow


def sheet_view(*, campaign: Campaign, character: Character) -> SheetView:
    party = []
    if campaign.players_see_party:
        party = [c for c in board_characters(campaign=campaign) if c.pk != character.pk]
    return SheetView(
        campaign=campaign,
        character=character,
        party=party,
        catalogue=catalogue_by_name(campaign=campaign),
        now=party_now(campaign=campaign),
    )


def roster(*, campaign_id: int) -> tuple[dict[int, str], set[int]]:
    """Every PJ's name by pk, and the pk of those in play: who a party event reached."""
    names, in_play = {}, set()
    rows = Character.objects.filter(campaign_id=campaign_id)
    for pk, name, archived_at in rows.values_list("pk", "name", "archived_at"):
        names[pk] = name
        if archived_at is None:
            in_play.add(pk)
    return names, in_play

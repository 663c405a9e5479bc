"""The DJ's turn reminders written: pinned, removed, and spent by the pass of their turn
(campaign.reminders says how they are read).

A note is not an event of the log: pinning or removing one is not undone by Deshacer, and
it reaches no player. Each write still takes the campaign lock and advances the change
cursor, so every board of the DJ shows it at once. The change is of kind "event" for every
card: a player's sheet hears it as news that changed nothing it shows, and is never
reloaded for it (kind "campaign" reloads sheets, kind "character" a player's archived PJ's
page).
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from .. import turn_order
from ..live.channel import change_record
from ..models import Campaign, CampaignChange, Character, Reminder, max_length
from ..reminders import END, ROUND, START, unspent
from .changes import Gone, lock

TEXT_MAX = max_length(Reminder, "text")
ROUND_MAX = 999
PINNED_MAX = 100  # notes still to come, per campaign


def reminder_add(
    campaign: Campaign,
    text: str,
    when: str,
    character: Character | None = None,
    round: int | None = None,
    every: bool = False,
) -> Reminder:
    """Pin a note to the start or the end of `character`'s turn, or to round `round` of a
    fight; once (spent by that turn's pass) or `every` time. The same note still to come,
    pinned again (a repeated tap), is that note."""
    if "\x00" in text:
        raise ValidationError({"text": _("A note cannot hold a NUL character.")}, code="nul")
    text = " ".join(text.split())
    if not text:
        raise ValidationError({"text": _("Write the note.")}, code="empty")
    if len(text) > TEXT_MAX:
        raise ValidationError(
            {"text": _("A note of at most %(n)s characters.") % {"n": TEXT_MAX}}, code="long"
        )
    if when not in (START, END, ROUND):
        raise ValidationError(
            {"when": _("Say when it shows: at the start or the end of a turn, or in a round.")},
            code="when",
        )
    if when == ROUND:
        character = None
        if type(round) is not int or not 1 <= round <= ROUND_MAX:
            raise ValidationError(
                {"round": _("A round from 1 to %(n)s.") % {"n": ROUND_MAX}}, code="round"
            )
    else:
        round = None
        if character is None:
            raise ValidationError({"character": _("Choose whose turn it is for.")}, code="who")
    with transaction.atomic():
        campaign = lock(campaign)
        if (
            character is not None
            and not campaign.characters.filter(pk=character.pk, archived_at__isnull=True).exists()
        ):
            raise ValidationError(
                {"character": _("%(name)s is not in play.") % {"name": character.name}},
                code="who",
            )
        still = unspent(campaign)
        same = still.filter(
            text=text, when=when, character=character, round=round, every=every
        ).first()
        if same is not None:
            return same
        if still.count() >= PINNED_MAX:
            raise ValidationError(
                {"text": _("At most %(n)s notes: remove one first.") % {"n": PINNED_MAX}},
                code="too_many",
            )
        note = Reminder.objects.create(
            campaign=campaign, text=text, when=when, character=character, round=round, every=every
        )
        change_record(campaign=campaign, kind=CampaignChange.Kind.EVENT)
    return note


def reminder_delete(reminder: Reminder) -> None:
    """Remove a note, spent or not. Gone when another tab removed it first."""
    with transaction.atomic():
        campaign = lock(reminder.campaign)
        deleted, _rows = Reminder.objects.filter(pk=reminder.pk, campaign=campaign).delete()
        if not deleted:
            raise Gone("No such reminder.")
        change_record(campaign=campaign, kind=CampaignChange.Kind.EVENT)


def reminders_spend(
    *, campaign: Campaign, now: turn_order.Fight, seq: int, turn: bool, round_ends: bool
) -> int:
    """Inside the transaction of the event `seq` that passed the fight as it stood (`now`):
    spend its one-time notes: the start and end notes of the current slot's members when
    its turn passed (`turn`), the notes of its round when the round ended (`round_ends`).
    How many were spent."""
    slot = now.current_slot
    which = Q()
    if turn and slot is not None and slot.members:
        which |= Q(when__in=(START, END), character_id__in=slot.members)
    if round_ends:
        which |= Q(when=ROUND, round=now.round)
    if not which:
        return 0
    pks = list(unspent(campaign).filter(which, every=False).values_list("pk", flat=True))
    return Reminder.objects.filter(pk__in=pks).update(spent_seq=seq)

"""PJ: create, change, archive and restore. Their logs follow through event_record."""

import enum
from datetime import datetime
from typing import Final, Literal

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import rules

from ..limits import powers_validate, scores_validate
from ..live.channel import change_record
from ..models import Campaign, CampaignChange, Character, CharacterSnapshot, Membership
from ..selectors import campaign_clock
from .campaigns import membership_set
from .changes import lock
from .events import event_record


class _Unset(enum.Enum):
    """The default of an argument left out (None is a value: no player)."""

    UNSET = enum.auto()


_UNSET: Final = _Unset.UNSET


def character_create(
    *,
    campaign: Campaign,
    name: str,
    player: User | None = None,
    attributes: dict | None = None,
    powers: list | None = None,
    notes: str = "",
    actor: User | None = None,
    recorded_at: datetime | None = None,
    pnj: dict | None = None,
    idempotency_key: str = "",
) -> Character:
    """A new PJ: its log starts at the campaign's game time, then records its scores.

    `pnj`: a PNJ instead, with these fields of it (side, template, in_party, revealed,
    lurking, shows); a PNJ has no player, and one given is refused."""
    if pnj is not None and player is not None:
        raise _pnj_player_refused()
    scores = scores_validate(attributes if attributes is not None else {})
    with transaction.atomic():
        locked = lock(campaign)
        clock = campaign_clock(campaign=locked)
        character = Character(
            campaign=locked,
            name=name.strip(),
            player=player if pnj is None else None,
            attributes=scores,
            powers=powers_validate(powers if powers is not None else []),
            notes=notes,
            joined_seq=locked.last_seq,
        )
        if pnj is not None:
            character.kind = Character.Kind.PNJ
            character.side = pnj.get("side") or Character.Side.ENEMIGO
            for name_ in ("template", "in_party", "revealed", "lurking", "shows"):
                if name_ in pnj:
                    setattr(character, name_, pnj[name_])
        character.full_clean()
        character.save()
        CharacterSnapshot.objects.create(
            character=character, state=rules.initial_state(), seq=locked.last_seq
        )
        if (
            character.player is not None
            and not Membership.objects.filter(campaign=locked, user=character.player).exists()
        ):
            membership_set(campaign=locked, user=character.player, role=Membership.Role.PLAYER)
        if clock:
            # A PJ who joins later lives on the party's clock (days, Descanso, R24 marks).
            event_record(
                campaign=locked,
                character=character,
                event={"kind": "start", "clock": clock},
                actor=actor,
                recorded_at=recorded_at,
            )
        event_record(
            campaign=locked,
            character=character,
            event={"kind": "attributes", "scores": scores},
            actor=actor,
            recorded_at=recorded_at,
            idempotency_key=idempotency_key,
        )
    return character


def character_update(
    *,
    character: Character,
    name: str | None = None,
    player: User | None | Literal[_Unset.UNSET] = _UNSET,
    attributes: dict | None = None,
    powers: list | None = None,
    notes: str | None = None,
    actor: User | None = None,
    player_was: User | None | Literal[_Unset.UNSET] = _UNSET,
) -> Character:
    """Change a PJ; new attribute scores are recorded in its log as an event.

    `player_was`: the player the DJ's form showed. The same `player` leaves the PJ's player
    as it is now (a player who joined or was removed meanwhile stays so); another one is
    refused, next to the field, when the PJ's player changed meanwhile.
    """
    with transaction.atomic():
        lock(character.campaign)
        character = Character.objects.get(pk=character.pk)
        if player is not _UNSET and player_was is not _UNSET:
            if _pk(player) == _pk(player_was):
                player = _UNSET  # unchanged on the form: not this edit's to write
            elif character.player_id != _pk(player_was):
                changed = _("%(name)s's player changed while you edited: check it and save again.")
                raise ValidationError(
                    {
                        "player": ValidationError(
                            changed % {"name": character.name}, code="player_changed"
                        )
                    }
                )
        if character.is_pnj and player is not _UNSET and player is not None:
            raise _pnj_player_refused()
        if name is not None:
            character.name = name.strip()
        if player is not _UNSET:
            character.player = player
        if powers is not None:
            character.powers = powers_validate(powers)
        if notes is not None:
            character.notes = notes
        scores = scores_validate(attributes) if attributes is not None else None
        changed_scores = scores is not None and scores != character.attributes
        if changed_scores:
            character.attributes = scores
        character.full_clean()
        character.save()
        change_record(
            campaign=character.campaign, kind=CampaignChange.Kind.CHARACTER, character=character
        )
        if changed_scores:
            event_record(
                campaign=character.campaign,
                character=character,
                event={"kind": "attributes", "scores": scores},
                actor=actor,
            )
    return character


def _pnj_player_refused() -> ValidationError:
    """A PNJ is the DJ's: no player plays it, nor sees its sheet as theirs."""
    return ValidationError({"player": _("A PNJ has no player: the DJ plays it.")}, code="pnj")


def _pk(user: User | None) -> int | None:
    return None if user is None else user.pk


def character_archive(*, character: Character) -> Character:
    """Hide a PJ from the board; its log stays and `character_restore` brings it back."""
    return _set_archived(character=character, archived=True)


def character_restore(*, character: Character) -> Character:
    """Bring an archived PJ back to the board."""
    return _set_archived(character=character, archived=False)


def _set_archived(*, character: Character, archived: bool) -> Character:
    with transaction.atomic():
        campaign = lock(character.campaign)
        character = Character.objects.get(pk=character.pk)
        if character.is_archived == archived:
            return character
        character.archived_at = timezone.now() if archived else None
        character.save(update_fields=["archived_at"])
        change_record(campaign=campaign, kind=CampaignChange.Kind.CHARACTER, character=character)
    return character


def character_secrets_set(
    *, character: Character, add: list[str] | tuple = (), remove: list[str] | tuple = ()
) -> Character:
    """Mark names (Afección sources, E.Esp) as kept from the player, or show them again."""
    with transaction.atomic():
        campaign = lock(character.campaign)
        character = Character.objects.get(pk=character.pk)
        names = (set(character.secret_names or []) | set(add)) - set(remove)
        if names == set(character.secret_names or []):
            return character
        character.secret_names = sorted(names)
        character.save(update_fields=["secret_names"])
        change_record(campaign=campaign, kind=CampaignChange.Kind.CHARACTER, character=character)
    return character

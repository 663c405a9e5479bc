"""Players: invitations to a PJ, joining through one, and the DJ taking a PJ back.

An invitation is a long random token (the link) and a short code to read aloud or show as
a QR code; either one joins, once, before it expires. Joining links the user to the PJ and
makes them a player of the campaign.
"""

import secrets
from datetime import timedelta

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..live.channel import change_record
from ..models import CampaignChange, Character, Invitation, Membership, WrongCode
from .campaigns import membership_set
from .changes import lock

INVITATION_TTL = timedelta(hours=48)
# No 0/O, 1/I/L: a code read aloud or copied from a screen is not misread.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


def code_normalize(code: str) -> str:
    """A code as typed ("abcd-efgh", "ABCD EFGH") in its stored form ("ABCDEFGH")."""
    return "".join(ch for ch in code.upper() if ch.isalnum())


def code_display(code: str) -> str:
    """A code as shown: two groups of four, easy to read aloud."""
    return f"{code[:4]}-{code[4:]}" if len(code) == CODE_LENGTH else code


def invitation_create(*, character: Character, by: User) -> Invitation:
    """A new invitation to play `character`; any earlier pending one for it is cancelled.

    The PJ is read again under the campaign lock: a player who joined through the earlier
    invitation meanwhile is told of, not invited over.
    """
    with transaction.atomic():
        lock(character.campaign)
        character = Character.objects.get(pk=character.pk)
        if character.is_pnj:
            raise ValidationError(_("A PNJ has no player: the DJ plays it."), code="pnj")
        if character.is_archived:
            raise ValidationError(_("Restore this PJ before inviting a player."), code="archived")
        if character.player_id is not None:
            raise ValidationError(
                _("%(name)s already has a player. Remove the player first to invite another.")
                % {"name": character.name},
                code="has_player",
            )
        now = timezone.now()
        Invitation.objects.filter(
            character=character, used_at__isnull=True, revoked_at__isnull=True
        ).update(revoked_at=now)
        for _attempt in range(5):
            try:
                with transaction.atomic():
                    return Invitation.objects.create(
                        campaign_id=character.campaign_id,
                        character=character,
                        token=secrets.token_urlsafe(32),
                        code="".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)),
                        created_by=by,
                        created_at=now,
                        expires_at=now + INVITATION_TTL,
                    )
            except IntegrityError:  # a code drawn twice (about 1 in 10^12): draw again
                continue
        raise ValidationError(_("Could not make an invitation; try again."), code="retry")


def invitation_find(*, token: str = "", code: str = "") -> Invitation | None:
    """The pending invitation with this link token or code, or None."""
    found = Invitation.objects.select_related("campaign", "character")
    if "\x00" in token:  # never a token, and PostgreSQL refuses it in a query
        return None
    if token:
        invitation = found.filter(token=token).first()
    elif code_normalize(code):
        invitation = found.filter(code=code_normalize(code)).first()
    else:
        return None
    return invitation if invitation is not None and invitation.is_pending else None


def invitation_cancel(*, invitation: Invitation) -> bool:
    """The DJ takes back an invitation nobody used yet; False when it was already used
    (under the campaign lock, so a join racing it is whole before or after it)."""
    with transaction.atomic():
        lock(invitation.campaign)
        return bool(
            Invitation.objects.filter(pk=invitation.pk, used_at__isnull=True).update(
                revoked_at=timezone.now()
            )
        )


def invitation_accept(*, invitation: Invitation, user: User) -> Character:
    """`user` becomes the player of the invitation's PJ (once; the invitation is spent)."""
    with transaction.atomic():
        campaign = lock(invitation.campaign)
        invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if not invitation.is_pending:
            raise ValidationError(
                _(
                    "This invitation was already used, cancelled or has expired. "
                    "Ask your DJ for a new one."
                ),
                code="spent",
            )
        character = Character.objects.select_for_update().get(pk=invitation.character_id)
        if character.is_archived:
            raise ValidationError(_("This PJ is no longer in play."), code="archived")
        if character.player_id is not None:
            raise ValidationError(
                _("%(name)s already has a player.") % {"name": character.name}, code="has_player"
            )
        role = (
            Membership.objects.filter(campaign=campaign, user=user)
            .values_list("role", flat=True)
            .first()
        )
        if role == Membership.Role.DJ:
            raise ValidationError(
                _("You are this campaign's DJ: a player must join with their own account."),
                code="is_dj",
            )
        if role is None:
            membership_set(campaign=campaign, user=user, role=Membership.Role.PLAYER)
        character.player = user
        character.save(update_fields=["player"])
        invitation.used_at = timezone.now()
        invitation.used_by = user
        invitation.save(update_fields=["used_at", "used_by"])
        change_record(campaign=campaign, kind=CampaignChange.Kind.CHARACTER, character=character)
    return character


def player_remove(*, character: Character) -> User | None:
    """The DJ takes the PJ back from its player, who stops seeing it at once; the player
    removed, or None when the PJ had none (another tab took it back first).

    A player with no other PJ in the campaign stops being its member.
    """
    with transaction.atomic():
        campaign = lock(character.campaign)
        character = Character.objects.select_for_update().get(pk=character.pk)
        player = character.player
        if player is None:
            return None
        player_id = player.pk
        # A change of every card: the former player's open sheet hears of it too (a change
        # naming the PJ would now be only the DJ's) and finds the PJ gone.
        change_record(campaign=campaign, kind=CampaignChange.Kind.CHARACTER)
        character.player = None
        character.save(update_fields=["player"])
        if not Character.objects.filter(campaign=campaign, player_id=player_id).exists():
            Membership.objects.filter(
                campaign=campaign, user_id=player_id, role=Membership.Role.PLAYER
            ).delete()
    return player


WRONG_CODES = 10  # per address, within WRONG_CODE_WINDOW
WRONG_CODE_WINDOW = timedelta(minutes=15)


def wrong_codes(*, address: str) -> int:
    """How many wrong codes `address` typed within the window."""
    since = timezone.now() - WRONG_CODE_WINDOW
    return WrongCode.objects.filter(address=address, at__gte=since).count()


def wrong_code_record(*, address: str) -> None:
    """Count one more wrong code from `address` (and forget those past the window)."""
    now = timezone.now()
    WrongCode.objects.filter(at__lt=now - WRONG_CODE_WINDOW).delete()
    WrongCode.objects.create(address=address, at=now)

"""Who may see or change what. Every campaign URL resolves its objects through here.

Anything a user may not see answers 404, never 403: a URL must not reveal what exists.
"""

from django.contrib.auth.models import AnonymousUser, User
from django.http import Http404

from .models import Campaign, Character, Membership


def campaign_for_dj(*, user: User | AnonymousUser, slug: str) -> Campaign:
    """The campaign `slug` when `user` is its DJ; Http404 otherwise."""
    if user.is_authenticated:
        campaign = Campaign.objects.filter(
            slug=slug, memberships__user=user, memberships__role=Membership.Role.DJ
        ).first()
        if campaign is not None:
            return campaign
    raise Http404("No such campaign.")


def membership_for(*, user: User | AnonymousUser, slug: str) -> Membership:
    """The user's membership of campaign `slug` (DJ or player); Http404 otherwise."""
    if user.is_authenticated:
        membership = (
            Membership.objects.filter(campaign__slug=slug, user=user)
            .select_related("campaign")
            .first()
        )
        if membership is not None:
            return membership
    raise Http404("No such campaign.")


def character_for_dj(
    *, campaign: Campaign, pk: int, archived: bool | None = False, kind: str | None = None
) -> Character:
    """A PJ or PNJ of the DJ's campaign (archived ones only when `archived` is None or True);
    of that `kind` only when given, so a PJ's page never opens a PNJ, nor the other way."""
    characters = Character.objects.filter(campaign=campaign, pk=pk)
    if archived is not None:
        characters = characters.filter(archived_at__isnull=not archived)
    if kind is not None:
        characters = characters.filter(kind=kind)
    character = characters.select_related("snapshot", "player").first()
    if character is None:
        raise Http404("No such PJ.")
    return character


def pj_for_dj(*, campaign: Campaign, pk: int, archived: bool | None = False) -> Character:
    """A PJ (never a PNJ) of the DJ's campaign: the PJ and players pages' lookup."""
    return character_for_dj(campaign=campaign, pk=pk, archived=archived, kind=Character.Kind.PJ)


def pnj_for_dj(*, campaign: Campaign, pk: int, archived: bool | None = False) -> Character:
    """A PNJ (never a PJ) of the DJ's campaign: the PNJ page's lookup."""
    return character_for_dj(campaign=campaign, pk=pk, archived=archived, kind=Character.Kind.PNJ)


def character_for_viewer(
    *, user: User | AnonymousUser, slug: str, pk: int
) -> tuple[Membership, Character]:
    """A PJ in play on campaign `slug` that `user` may follow: its own player, or the DJ.

    Http404 for anyone else, for an archived PJ, and for a PJ of another campaign.
    """
    membership = membership_for(user=user, slug=slug)
    characters = Character.objects.filter(
        campaign=membership.campaign, pk=pk, archived_at__isnull=True
    )
    if membership.role != Membership.Role.DJ:
        characters = characters.filter(player_id=membership.user_id)  # `user`, signed in
    character = characters.select_related("snapshot", "player").first()
    if character is None:
        raise Http404("No such PJ.")
    return membership, character


def archived_own_character(*, user: User | AnonymousUser, slug: str, pk: int) -> Character | None:
    """`user`'s own PJ `pk` on campaign `slug` when the DJ has archived it (its player may
    know that much), else None."""
    if not user.is_authenticated:
        return None
    return (
        Character.objects.filter(
            campaign__slug=slug,
            campaign__memberships__user=user,
            pk=pk,
            player=user,
            archived_at__isnull=False,
        )
        .select_related("campaign")
        .first()
    )

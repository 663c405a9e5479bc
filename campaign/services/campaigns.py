"""Campaigns, their catalogue and memberships."""

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from ..catalogue import catalogue_entries
from ..models import Campaign, CatalogueEntry, Membership


def campaign_create(
    *,
    name: str,
    slug: str = "",
    dj: AbstractBaseUser | None = None,
    especificos: bool = False,
    esfuerzo_prolongado: bool = False,
    round_seconds: int = 6,
) -> Campaign:
    """A new campaign with its catalogue seeded and, if given, its DJ."""
    campaign = Campaign(
        name=name,
        slug=slug or slugify(name),
        especificos=especificos,
        esfuerzo_prolongado=esfuerzo_prolongado,
        round_seconds=round_seconds,
    )
    campaign.full_clean()
    with transaction.atomic():
        campaign.save()
        catalogue_seed(campaign=campaign)
        if dj is not None:
            membership_set(campaign=campaign, user=dj, role=Membership.Role.DJ)
    return campaign


def catalogue_seed(*, campaign: Campaign) -> int:
    """Add the SPEC §1 names missing from a campaign's catalogue; returns how many."""
    existing = set(campaign.catalogue.values_list("name", flat=True))
    missing = [e for e in catalogue_entries(campaign) if e.name not in existing]
    CatalogueEntry.objects.bulk_create(missing)
    return len(missing)


def membership_set(*, campaign: Campaign, user: AbstractBaseUser, role: str) -> Membership:
    """Make `user` a member of `campaign` with `role` (DJ or player)."""
    if role not in Membership.Role.values:
        raise ValidationError(_("Unknown role."), code="invalid_role")
    membership, _created = Membership.objects.update_or_create(
        campaign=campaign, user=user, defaults={"role": role}
    )
    return membership

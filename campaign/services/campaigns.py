"""Campaigns, their catalogue and memberships."""

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from ..catalogue import catalogue_entries
from ..limits import ROUND_SECONDS_MAX
from ..live.channel import change_record
from ..models import Campaign, CampaignChange, CatalogueEntry, Membership, max_length
from ..selectors import campaign_options_locked, characters_showing
from .changes import Gone, lock

_SLUG_MAX = max_length(Campaign, "slug")


def campaign_create(
    *,
    name: str,
    slug: str = "",
    dj: User | None = None,
    especificos: bool = False,
    esfuerzo_prolongado: bool = False,
    round_seconds: int = 6,
) -> Campaign:
    """A new campaign with its catalogue seeded and, if given, its DJ.

    Without a `slug` one is made from the name, with -2, -3... added when it is taken.
    """
    name = name.strip()
    _round_seconds_validate(round_seconds)
    base = slug or _slug_base(name)
    for attempt in range(1, 1000):
        campaign = Campaign(
            name=name,
            slug=base if slug or attempt == 1 else _slug_numbered(base, attempt),
            especificos=especificos,
            esfuerzo_prolongado=esfuerzo_prolongado,
            round_seconds=round_seconds,
        )
        if not slug and Campaign.objects.filter(slug=campaign.slug).exists():
            continue
        campaign.full_clean()
        try:
            with transaction.atomic():
                campaign.save()
                catalogue_seed(campaign=campaign)
                if dj is not None:
                    membership_set(campaign=campaign, user=dj, role=Membership.Role.DJ)
        except IntegrityError:
            # Another writer took the slug between the check and the save: try the next.
            if slug or not Campaign.objects.filter(slug=campaign.slug).exists():
                raise
            continue
        return campaign
    raise ValidationError(_("Could not find a free address for this campaign."), code="slug")


def _slug_base(name: str) -> str:
    return slugify(name)[:_SLUG_MAX].strip("-") or "campana"


def _slug_numbered(base: str, number: int) -> str:
    suffix = f"-{number}"
    return base[: _SLUG_MAX - len(suffix)].rstrip("-") + suffix


def _round_seconds_validate(round_seconds: object) -> None:
    if type(round_seconds) is not int or not 1 <= round_seconds <= ROUND_SECONDS_MAX:
        raise ValidationError(
            {"round_seconds": _("Seconds per round must be a whole number from 1 to 600.")},
            code="round_seconds",
        )


def campaign_update(
    *,
    campaign: Campaign,
    name: str | None = None,
    especificos: bool | None = None,
    esfuerzo_prolongado: bool | None = None,
    round_seconds: int | None = None,
    players_see_party: bool | None = None,
) -> Campaign:
    """Rename a campaign or change its options; the options only before its first game event.

    Changing an option afterwards would change how the recorded log reads, so it is refused.
    Whether players see the party is not a rule option: it can change any time.
    """
    options = {
        "especificos": especificos,
        "esfuerzo_prolongado": esfuerzo_prolongado,
        "round_seconds": round_seconds,
    }
    with transaction.atomic():
        campaign = lock(campaign)
        changed = {k: v for k, v in options.items() if v is not None and v != getattr(campaign, k)}
        if changed and campaign_options_locked(campaign=campaign):
            raise ValidationError(
                _(
                    "The options cannot change once the log has game events: "
                    "they would change how the recorded log reads."
                ),
                code="options_locked",
            )
        if "round_seconds" in changed:
            _round_seconds_validate(changed["round_seconds"])
        if name is not None:
            campaign.name = name.strip()
        if players_see_party is not None and players_see_party != campaign.players_see_party:
            changed["players_see_party"] = players_see_party
        for key, value in changed.items():
            setattr(campaign, key, value)
        campaign.full_clean()
        campaign.save(update_fields=["name", *changed])
        change_record(campaign=campaign, kind=CampaignChange.Kind.CAMPAIGN)
    return campaign


def catalogue_seed(*, campaign: Campaign) -> int:
    """Add the rules/README.md §1 names missing from a campaign's catalogue; returns how many."""
    existing = set(campaign.catalogue.values_list("name", flat=True))
    missing = [e for e in catalogue_entries(campaign) if e.name not in existing]
    CatalogueEntry.objects.bulk_create(missing)
    return len(missing)


def catalogue_name_normalize(name: str) -> str:
    """A catalogue name as events spell it: lowercase, single spaces."""
    return " ".join(name.split()).lower()


def catalogue_entry_save(
    *,
    campaign: Campaign,
    entry: CatalogueEntry | None = None,
    name: str = "",
    kind: str = "",
    effect: str | None = None,
    effect_leve: str | None = None,
    effect_grave: str | None = None,
    effect_persistente: str | None = None,
) -> CatalogueEntry:
    """Add a catalogue entry (`entry` None) or change an entry's texts (None: unchanged).

    An entry's name and kind are fixed once made: events refer to it by its name. An entry
    deleted meanwhile (another tab) is Gone: nothing is written.
    """
    texts = {
        "effect": effect,
        "effect_leve": effect_leve,
        "effect_grave": effect_grave,
        "effect_persistente": effect_persistente,
    }
    if entry is not None and entry.campaign_id != campaign.pk:
        raise ValidationError(_("That entry belongs to another campaign."), code="wrong_campaign")
    with transaction.atomic():
        campaign = lock(campaign)
        if entry is None:
            entry = CatalogueEntry(
                campaign=campaign, name=catalogue_name_normalize(name), kind=kind
            )
            if campaign.catalogue.filter(name=entry.name).exists():
                raise ValidationError(
                    {
                        "name": _("The catalogue already has an entry called “%(name)s”.")
                        % {"name": entry.name}
                    },
                    code="catalogue_name_taken",
                )
        else:
            # Read again under the lock: a delete may have won it.
            fresh = CatalogueEntry.objects.filter(pk=entry.pk, campaign=campaign).first()
            if fresh is None:
                raise Gone("No such catalogue entry.")
            entry = fresh
        for field, text in texts.items():
            if text is not None:
                setattr(entry, field, text.strip())
        entry.full_clean()
        entry.save()
        _catalogue_changed(campaign, entry.name)
    return entry


def _catalogue_changed(campaign: Campaign, name: str) -> None:
    """A catalogue text changed: the cards showing that entry change, and no other page
    (no page loads anew: a table's phones keep what they show)."""
    for character in characters_showing(campaign=campaign, name=name):
        change_record(campaign=campaign, kind=CampaignChange.Kind.CATALOGUE, character=character)


def catalogue_entry_delete(*, entry: CatalogueEntry) -> None:
    """Remove a catalogue entry; events that name it keep the name, only the text goes.

    Gone when another request deleted it first: nothing is written (no change either).
    """
    with transaction.atomic():
        campaign = lock(entry.campaign)
        deleted, _rows = CatalogueEntry.objects.filter(pk=entry.pk).delete()
        if not deleted:
            raise Gone("No such catalogue entry.")
        _catalogue_changed(campaign, entry.name)


def membership_set(*, campaign: Campaign, user: User, role: str) -> Membership:
    """Make `user` a member of `campaign` with `role` (DJ or player)."""
    if role not in Membership.Role.values:
        raise ValidationError(_("Unknown role."), code="invalid_role")
    membership, _created = Membership.objects.update_or_create(
        campaign=campaign, user=user, defaults={"role": role}
    )
    return membership

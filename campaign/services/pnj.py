"""PNJ, the DJ's enemies and allies: made in one step (from a Plantilla, several at once),
set up (side, party, what players see), put in a fight or taken out of it, and hit together
(the area blow). Their log, rules and card are a PJ's (services.characters, events)."""

import dataclasses
import re
from collections.abc import Iterable

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from rules import RuleError

from .. import turn_order
from ..limits import powers_validate, scores_validate
from ..live.channel import change_record
from ..models import Campaign, CampaignChange, Character, StateEvent, Template, max_length
from ..selectors import event_by_key, fight_now
from .changes import lock
from .characters import character_create, character_update
from .events import event_record, tap_done, tap_key
from .fight import fight_as_seen, order_record

COPIES_MAX = 20
# A PNJ's name fits a fight's order line (and a number after it).
NAME_MAX = turn_order.NAME_MAX
# The name of PNJ made several at once, and so of a Plantilla: room left for " 200".
COPY_NAME_MAX = NAME_MAX - len(f" {COPIES_MAX * 10}")


def pnj_names(
    campaign: Campaign, name: str, count: int, *, also_taken: Iterable[str] = ()
) -> list[str]:
    """The names of `count` new PNJ called `name`: the name itself for one when it is free,
    else numbered after the highest "name N" of the campaign and of `also_taken` (lines of
    a form not saved yet): "Bandido ×4" makes Bandido 1–4."""
    taken = set(campaign.characters.values_list("name", flat=True)) | set(also_taken)
    folded = {t.casefold() for t in taken}
    if count == 1 and name.casefold() not in folded:
        return [name]
    number = re.compile(rf"{re.escape(name.casefold())} (\d+)")
    highest = max(
        (int(m.group(1)) for t in folded if (m := number.fullmatch(t))),
        default=1 if name.casefold() in folded else 0,
    )
    return [f"{name} {highest + i}" for i in range(1, count + 1)]


def pnj_create(
    *,
    campaign: Campaign,
    name: str = "",
    count: int = 1,
    side: str = Character.Side.ENEMIGO,
    template: Template | None = None,
    attributes: dict | None = None,
    powers: list | None = None,
    notes: str = "",
    in_party: bool = False,
    lurking: bool = False,
    join: dict | None = None,
    together: bool = False,
    expected: str = "",
    actor: User | None = None,
    idempotency_key: str = "",
) -> list[Character]:
    """`count` new PNJ named `name` (numbered when several), or copies of `template` (its
    name, side, scores, powers and notes). `join`: put them in the fight going on, as
    {"init": n or None, "together": bool} (a group shares one turn). `together` with no
    fight: they share one turn when the next fight's order page starts (`turn_with`). The
    PNJ made, by name; a repeated tap makes none and returns those of the first."""
    if template is not None:
        name = name or template.name
        side, notes = template.side, notes or template.notes
        attributes = attributes if attributes is not None else template.attributes
        powers = powers if powers is not None else template.powers
    name = " ".join((name or "").split())
    if not name:
        raise ValidationError({"name": _("Give the PNJ a name.")}, code="name")
    if not 1 <= count <= COPIES_MAX:
        raise ValidationError(
            {"count": _("From 1 to %(n)s at once.") % {"n": COPIES_MAX}}, code="count"
        )
    room = COPY_NAME_MAX if count > 1 else NAME_MAX
    if len(name) > room:
        raise ValidationError(
            {"name": _("A name of at most %(n)s characters.") % {"n": room}}, code="name"
        )
    if side not in Character.Side.values:
        raise ValidationError({"side": _("Choose enemy or ally.")}, code="side")
    scores = scores_validate(attributes if attributes is not None else {})
    power_list = powers_validate(powers if powers is not None else [])
    with transaction.atomic():
        campaign = lock(campaign)
        if idempotency_key and (
            made := list(
                Character.objects.filter(
                    events__campaign=campaign,
                    events__idempotency_key__in=[
                        tap_key(idempotency_key, f":p{i}") for i in range(COPIES_MAX)
                    ],
                ).order_by("pk")
            )
        ):
            return made  # a repeated tap: the PNJ its first made
        if join is not None:
            fight_as_seen(campaign, expected)
        names = pnj_names(campaign, name, count)
        made = [
            character_create(
                campaign=campaign,
                name=pnj_name,
                attributes=scores,
                powers=power_list,
                notes=notes,
                actor=actor,
                pnj={
                    "side": side,
                    "template": template,
                    "in_party": in_party and side == Character.Side.ALIADO,
                    "lurking": lurking,
                },
                idempotency_key=tap_key(idempotency_key, f":p{i}"),
            )
            for i, pnj_name in enumerate(names)
        ]
        if together and join is None and len(made) > 1:
            Character.objects.filter(pk__in=[c.pk for c in made]).update(turn_with=made[0])
            for character in made:
                character.turn_with = made[0]
        if join is not None:
            fight_join_records(
                campaign=campaign,
                characters=made,
                init=join.get("init"),
                together=bool(join.get("together")) and len(made) > 1,
                actor=actor,
                idempotency_key=idempotency_key,
            )
    return made


def fight_join_records(
    *,
    campaign: Campaign,
    characters: list[Character],
    init: int | None,
    together: bool,
    actor: User | None,
    idempotency_key: str,
) -> StateEvent:
    """Put `characters` in the fight going on (inside the caller's transaction, the fight
    checked): one slot for them all (`together`) or one each, placed by initiative among
    those typed (after the last one with as much), or at the end without one."""
    now = fight_now(campaign=campaign)
    assert now is not None  # the caller checked it under the lock
    already = now.fighting & {c.pk for c in characters}
    if already:
        raise ValidationError(_("Someone is already in the order."), code="twice")
    pks = [c.pk for c in characters]
    new = (
        [turn_order.Slot(pj=pks[0], also=tuple(pks[1:]), init=init)]
        if together
        else [turn_order.Slot(pj=pk, init=init) for pk in pks]
    )
    order = list(now.order)
    at = len(order)
    if init is not None:
        at = next(
            (i for i, s in enumerate(order) if s.init is not None and s.init < init), len(order)
        )
    order[at:at] = new
    return order_record(
        campaign=campaign,
        now=now,
        order=order,
        actor=actor,
        idempotency_key=idempotency_key,
    )[0]


def fight_join(
    *,
    campaign: Campaign,
    characters: list[Character],
    init: int | None = None,
    together: bool = False,
    expected: str = "",
    actor: User | None = None,
    idempotency_key: str = "",
) -> StateEvent:
    """Put PNJ already made (or PJ) into the fight going on (`fight_join_records`)."""
    with transaction.atomic():
        campaign = lock(campaign)
        if (done := event_by_key(campaign=campaign, key=idempotency_key)) is not None:
            return done
        fight_as_seen(campaign, expected)
        return fight_join_records(
            campaign=campaign,
            characters=characters,
            init=init,
            together=together and len(characters) > 1,
            actor=actor,
            idempotency_key=idempotency_key,
        )


def fight_out(
    *,
    campaign: Campaign,
    character: Character,
    why: str,
    expected: str = "",
    actor: User | None = None,
    idempotency_key: str = "",
) -> list[StateEvent]:
    """Fuera de combate: `character` leaves the fight's order (its group goes on without
    it), and why stays on record. Its turn, if it was its, goes to the next one."""
    if why not in turn_order.OUT_WHY:
        raise ValidationError(_("Say why it leaves the fight."), code="why")
    with transaction.atomic():
        campaign = lock(campaign)
        if (done := event_by_key(campaign=campaign, key=idempotency_key)) is not None:
            return [done]
        now = fight_as_seen(campaign, expected)
        where = now.slot_of(character.pk)
        if where is None:
            raise ValidationError(
                _("%(name)s is not in the fight's order.") % {"name": character.name},
                code="not_in",
            )
        slot = now.order[where]
        rest = [pk for pk in slot.members if pk != character.pk]
        order = list(now.order)
        if rest:
            order[where] = dataclasses.replace(slot, pj=rest[0], also=tuple(rest[1:]))
        else:
            order.pop(where)
        if not order:
            raise ValidationError(
                _("%(name)s is the last one in the order: end the fight instead.")
                % {"name": character.name},
                code="last",
            )
        return order_record(
            campaign=campaign,
            now=now,
            order=order,
            out={"pj": character.pk, "why": why},
            actor=actor,
            idempotency_key=idempotency_key,
        )


def area_event(
    *,
    campaign: Campaign,
    characters: list[Character],
    event: dict,
    actor: User | None = None,
    idempotency_key: str = "",
) -> list[StateEvent]:
    """The area blow: one E.Alt event for each of `characters`, in one tap (all or none:
    one the rules refuse refuses the tap, its RuleError noted with its name). Deshacer
    takes them back together."""
    if not characters:
        raise ValidationError(_("Mark whom the blow reaches."), code="nobody")
    with transaction.atomic():
        campaign = lock(campaign)
        ordered = sorted(characters, key=lambda c: c.pk)
        if done := tap_done(campaign, idempotency_key, first=f":a{ordered[0].pk}"):
            return done
        records = []
        for character in ordered:
            try:
                records.append(
                    event_record(
                        campaign=campaign,
                        character=character,
                        event=event,
                        actor=actor,
                        idempotency_key=tap_key(idempotency_key, f":a{character.pk}"),
                    )
                )
            except RuleError as err:
                err.add_note(character.name)
                raise
        return records


SETTINGS = ("side", "in_party", "revealed", "lurking", "shows")


def pnj_settings_set(*, character: Character, **changes: object) -> Character:
    """Change a PNJ's side, party, or what players see of it (`SETTINGS`). Every page
    hears of it: what players see of the fight changes with it."""
    unknown = set(changes) - set(SETTINGS)
    if unknown:
        raise TypeError(f"not a PNJ setting: {sorted(unknown)}")
    with transaction.atomic():
        campaign = lock(character.campaign)
        character = Character.objects.get(pk=character.pk)
        if not character.is_pnj:
            raise ValidationError(_("Only a PNJ has these settings."), code="not_pnj")
        for name, value in changes.items():
            setattr(character, name, value)
        if character.side != Character.Side.ALIADO:
            character.in_party = False  # only an ally travels with the party
        character.full_clean()
        character.save()
        change_record(campaign=campaign, kind=CampaignChange.Kind.CHARACTER)
    return character


def pnj_update(
    *,
    character: Character,
    name: str,
    attributes: dict,
    powers: list,
    notes: str,
    actor: User | None = None,
    **settings: object,
) -> Character:
    """A PNJ's edit page saved: its card (`character_update`: new scores go to its log) and
    its `SETTINGS`, together or not at all."""
    if not character.is_pnj:
        raise ValidationError(_("Only a PNJ has these settings."), code="not_pnj")
    name = " ".join(name.split())
    if len(name) > NAME_MAX:
        raise ValidationError(
            {"name": _("A name of at most %(n)s characters.") % {"n": NAME_MAX}}, code="name"
        )
    with transaction.atomic():
        character = character_update(
            character=character,
            name=name,
            attributes=attributes,
            powers=powers,
            notes=notes,
            actor=actor,
        )
        return pnj_settings_set(character=character, **settings)


def template_save(
    *,
    campaign: Campaign,
    name: str,
    side: str = Character.Side.ENEMIGO,
    attributes: dict | None = None,
    powers: list | None = None,
    notes: str = "",
    template: Template | None = None,
) -> Template:
    """A new Plantilla, or `template` changed. Its PNJ keep what they were made with."""
    name = " ".join(name.split())
    limit = min(max_length(Template, "name"), COPY_NAME_MAX)
    if not name:
        raise ValidationError({"name": _("Give the template a name.")}, code="name")
    if len(name) > limit:
        raise ValidationError(
            {"name": _("A name of at most %(n)s characters.") % {"n": limit}}, code="name"
        )
    if side not in Character.Side.values:
        raise ValidationError({"side": _("Choose enemy or ally.")}, code="side")
    with transaction.atomic():
        campaign = lock(campaign)
        same = campaign.templates.filter(name__iexact=name)
        if template is not None:
            same = same.exclude(pk=template.pk)
        if same.exists():
            raise ValidationError(
                {"name": _("There is a template called %(name)s already.") % {"name": name}},
                code="taken",
            )
        template = template or Template(campaign=campaign)
        template.name, template.side, template.notes = name, side, notes
        template.attributes = scores_validate(attributes if attributes is not None else {})
        template.powers = powers_validate(powers if powers is not None else [])
        template.save()
    return template


def template_delete(*, template: Template) -> None:
    """Forget a Plantilla; the PNJ made from it stay as they are."""
    with transaction.atomic():
        lock(template.campaign)
        template.delete()

"""The fight's order page's form: its lines (a PJ or PNJ, a group sharing one turn, PNJ to
make when the order is saved), read from a request or from the fight, and each move of the
page (up, down, out, sort, add, join a line to the one above in one turn, split a group)
applied to them, writing nothing (views.fight saves them).
"""

from collections.abc import Mapping
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from . import services, turn_order
from .models import Campaign, Character
from .numbers import whole
from .present.events import WHY
from .requests import AuthedHttpRequest


@dataclass(frozen=True)
class New:
    """PNJ a line of the order form stands for, made when the order is saved: its number on
    the page, its Plantilla's pk (or 0), its side and, for a group that shares one turn,
    the number of its first copy and how many ("Bandido 4", "Bandido 5": first 4, count 2)."""

    number: int
    template: int
    side: str = Character.Side.ENEMIGO
    first: int = 0
    count: int = 1

    @property
    def slot(self) -> str:
        group = f":{self.first}:{self.count}" if self.count > 1 else ""
        return f"new:{self.number}:{self.template}:{self.side}{group}"

    def names(self, name: str) -> list[str]:
        """The names of its PNJ: the line's own, or a group's numbered after `name`."""
        if self.count == 1:
            return [name]
        return [f"{name} {self.first + i}" for i in range(self.count)]


class Row:
    """One line of the order form and the initiative typed: a PJ or PNJ ("pj:12"), a group
    of PNJ who share a turn ("pj:12+13+14"), PNJ to make when the order is saved (`New`:
    "new:<n>:<template pk or 0>:<side>", its name typed, or a group of them sharing one
    turn, "new:<n>:<template>:<side>:<first>:<count>", their name's stem in the name field),
    or, in a fight from before PNJ, someone named with no card ("npc:<n>")."""

    def __init__(self, slot: str, name: str = "", init: str = "", calm: bool = False) -> None:
        self.slot, self.name, self.init = slot, name, init
        # R27 (rules v2.2): the DJ marked it as not exerting itself ("no se esfuerza").
        self.calm = calm
        self.error = ""
        self.label = name
        # Whether the page offers to put it in the turn of the line above (`label` says).
        self.joins = False

    @property
    def members(self) -> list[int]:
        kind, _sep, numbers = self.slot.partition(":")
        if kind != "pj":
            return []
        found = [whole(n) for n in numbers.split("+")[: turn_order.SLOTS_MAX]]
        return [n for n in found if n is not None] if None not in found else []

    @property
    def pj(self) -> int | None:
        members = self.members
        return members[0] if members else None

    @property
    def npc(self) -> int | None:
        kind, _sep, number = self.slot.partition(":")
        return whole(number) if kind == "npc" else None

    @property
    def new(self) -> New | None:
        """The PNJ to make of a new line (None for any other line, or one garbled)."""
        kind, *parts = self.slot.split(":")
        if kind != "new" or len(parts) not in (2, 3, 5):
            return None
        number, template = whole(parts[0]), whole(parts[1] or "0")
        side = parts[2] if len(parts) > 2 else Character.Side.ENEMIGO
        first, count = (whole(parts[3]), whole(parts[4])) if len(parts) == 5 else (0, 1)
        if None in (number, template, first, count) or side not in Character.Side.values:
            return None
        return New(number or 0, template or 0, side, first or 0, count or 0)


def _name(text: str | None) -> str:
    """A name as typed, its spaces tidied, without NUL (PostgreSQL refuses it in jsonb)."""
    return " ".join((text or "").replace("\x00", "").split())


def rows_from(request: AuthedHttpRequest) -> list[Row]:
    slots = request.POST.getlist("slot")[: turn_order.SLOTS_MAX + 1]
    names = request.POST.getlist("name")
    inits = request.POST.getlist("init")
    calm = set(request.POST.getlist("calm"))  # each box's value is its line's slot
    return [
        Row(
            slot,
            _name(names[i] if i < len(names) else "")[: turn_order.NAME_MAX * 2],
            (inits[i] if i < len(inits) else "").strip()[:12],
            slot in calm,
        )
        for i, slot in enumerate(slots)
    ]


def rows_of(
    now: turn_order.Fight | None, characters, last: turn_order.Fight | None = None
) -> list[Row]:
    """The lines of the fight going on; with none, everyone in play (`characters`) for the
    next one, grouped as in the `last` fight that ended (PNJ sharing a turn share it
    again; PNJ added with "one turn for all" since share one) and without the PNJ it took
    out (the DJ may add them back under "Who")."""
    if now is None:
        return _fresh(characters, last)
    return [
        Row(
            "pj:" + "+".join(map(str, s.members)) if s.pj is not None else f"npc:{s.npc}",
            s.name,
            "" if s.init is None else str(s.init),
            not s.esfuerzo,
        )
        for s in now.order
    ]


def _fresh(characters, last: turn_order.Fight | None) -> list[Row]:
    """rows_of with no fight on: one line each, a group of the last fight as one line, and
    so PNJ added together since, sharing a turn (Character.turn_with)."""
    out = set(last.out) if last is not None else set()
    kept = [c for c in characters if not (c.is_pnj and c.pk in out)]
    ids = {c.pk for c in kept}
    group: dict[int, list[int]] = {}  # each member of a group still in play: its members
    for slot in last.order if last is not None else []:
        members = [pk for pk in slot.members if pk in ids]
        if len(members) > 1:
            group.update(dict.fromkeys(members, members))
    # PNJ added with "one turn for all" since (in no fight yet): their turn_with's group.
    fought = last.fighting | set(last.out) if last is not None else set()
    added: dict[int, list[int]] = {}
    for c in kept:
        lead = c.turn_with_id
        if lead is not None and c.pk not in group and c.pk not in fought:
            added.setdefault(lead, []).append(c.pk)
    for members in added.values():
        if len(members) > 1:
            group.update(dict.fromkeys(members, members))
    rows, done = [], set()
    for c in kept:
        if c.pk in done:
            continue
        members = group.get(c.pk, [c.pk])
        done.update(members)
        rows.append(Row("pj:" + "+".join(map(str, members))))
    return rows


class Adding:
    """The form's "Add to the order" as typed: shown again with every answer of the page
    (a move, a refusal) and emptied once what it says has joined the order. `error` is
    said next to `field`, the control it is about."""

    def __init__(self, post: Mapping[str, str] | None = None) -> None:
        post = post or {}
        self.who = (post.get("new") or "npc")[:20]
        self.name = _name(post.get("new_name"))[: turn_order.NAME_MAX * 2]
        self.count = (post.get("new_count") or "1").strip()[:12]
        self.init = (post.get("new_init") or "").strip()[:12]
        self.side = post.get("new_side") or Character.Side.ENEMIGO
        self.together = post.get("new_together") == "1"
        self.error, self.field = "", ""

    @property
    def pk(self) -> int | None:
        """The PJ or PNJ in play chosen to join, if one is."""
        return whole(self.who[3:]) if self.who.startswith("pj:") else None

    def clear(self) -> None:
        """The form as a new page shows it."""
        self.who, self.name, self.count, self.init = "npc", "", "1", ""
        self.side, self.together = Character.Side.ENEMIGO, False

    def refuse(self, field: str, error: str) -> str:
        self.field, self.error = field, error
        return error


def move(rows: list[Row], step: str, adding: Adding, in_play: dict, campaign: Campaign) -> str:
    """Apply one move of the form to `rows` (in place); an error to show, or ""."""
    doing, _sep, where = step.partition(":")
    if doing not in ("up", "down", "drop", "sort", "add", "join", "split"):
        return _("Unknown action.")  # no button of the page sends it
    line = whole(where)
    if doing in ("up", "down", "drop", "join", "split") and (line is None or line >= len(rows)):
        return _("That line is no longer in the order.")
    i = line or 0  # for up, down, drop, join and split: the line, checked just above
    if doing == "up" and i > 0:
        rows[i - 1], rows[i] = rows[i], rows[i - 1]
    elif doing == "down" and i < len(rows) - 1:
        rows[i + 1], rows[i] = rows[i], rows[i + 1]
    elif doing == "drop":
        rows.pop(i)
    elif doing == "sort":
        keyed, bad = [], False
        for row in rows:
            try:
                keyed.append((row, turn_order.initiative_read(row.init)))
            except ValidationError as err:
                row.error, bad = " ".join(err.messages), True
        if bad:
            return _("Some lines need a fix: see each one.")
        keyed.sort(key=lambda pair: (pair[1] is None, -(pair[1] or 0)))  # stable
        rows[:] = [row for row, _value in keyed]
    elif doing == "add":
        return _add(rows, adding, in_play, campaign)
    elif doing == "join":
        if i == 0 or not (joinable(rows[i - 1], in_play) and joinable(rows[i], in_play)):
            return _("Only PNJ in play share a turn, with the line just above.")
        above, row = rows[i - 1], rows[i]
        members = [*above.members, *row.members][: turn_order.SLOTS_MAX]
        rows[i - 1 : i + 1] = [
            Row("pj:" + "+".join(map(str, members)), "", above.init or row.init, above.calm)
        ]
    elif doing == "split" and len(rows[i].members) > 1:
        row = rows[i]
        rows[i : i + 1] = [Row(f"pj:{pk}", "", row.init, row.calm) for pk in row.members]
    return ""


def joinable(row: Row, in_play: dict) -> bool:
    """Whether a line may share its turn with another: PNJ in play, alone or a group."""
    members = row.members
    return bool(members) and all(pk in in_play and in_play[pk].is_pnj for pk in members)


def _add(rows: list[Row], adding: Adding, in_play: dict, campaign: Campaign) -> str:
    """The form's "add" move: a PJ or PNJ in play joins the order's end, or new PNJ do
    (named, ×N, or copies of the Plantilla of that name; with "one turn for all", as one
    line), made when the order is saved. Refused, `adding` says why next to its field."""
    try:
        init = turn_order.initiative_read(adding.init)
    except ValidationError as err:
        return adding.refuse("new_init", " ".join(err.messages))
    taken = {pk for row in rows for pk in row.members}
    if adding.who.startswith("pj:"):
        pk = adding.pk
        if pk not in in_play or pk in taken:
            message = _("Choose a PJ or PNJ in play who is not in the order yet.")
            return adding.refuse("new", message)
        if len(rows) >= turn_order.SLOTS_MAX:
            message = _("At most %(n)s in a fight's order.") % {"n": turn_order.SLOTS_MAX}
            return adding.refuse("new", message)
        rows.append(Row(adding.who, "", adding.init))
    else:
        count = whole(adding.count, digits=3)
        if not adding.name and init is None:
            return ""  # nothing typed to add (Enter in another field): the page as it is
        if not adding.name:
            message = _("Name whoever joins the order (an enemy, an ally…).")
            return adding.refuse("new_name", message)
        if count is None or not 1 <= count <= services.COPIES_MAX:
            message = _("How many: from 1 to %(n)s.") % {"n": services.COPIES_MAX}
            return adding.refuse("new_count", message)
        if adding.side not in Character.Side.values:
            return adding.refuse("new_side", _("Choose enemy or ally."))
        room = turn_order.NAME_MAX - (3 if count > 1 else 0)
        if len(adding.name) > room:
            message = _("A name of at most %(n)s characters.") % {"n": room}
            return adding.refuse("new_name", message)
        template = next(
            (t for t in campaign.templates.all() if t.name.casefold() == adding.name.casefold()),
            None,
        )
        name = template.name if template else adding.name
        number = max((row.new.number + row.new.count - 1 for row in rows if row.new), default=0)
        also_taken = [each for row in rows for each in names_of(row)]
        names = services.pnj_names(campaign, name, count, also_taken=also_taken)
        tpk = template.pk if template else 0
        if adding.together and count > 1:
            first = int(names[0][len(name) + 1 :])  # numbered after the stem: "Bandido 4"
            joining = [Row(New(number + 1, tpk, adding.side, first, count).slot, name, adding.init)]
        else:
            joining = [
                Row(New(number + i, tpk, adding.side).slot, each, adding.init)
                for i, each in enumerate(names, start=1)
            ]
        if len(rows) + len(joining) > turn_order.SLOTS_MAX:
            message = _("At most %(n)s in a fight's order.") % {"n": turn_order.SLOTS_MAX}
            return adding.refuse("new_count", message)
        rows += joining
    adding.clear()  # it has joined: the form is empty again
    return ""


def names_of(row: Row) -> list[str]:
    """The names a line of new PNJ will make (none for any other line)."""
    return row.new.names(row.name) if row.new is not None else []


def slots_of(rows: list[Row], in_play: dict) -> list[turn_order.Slot] | None:
    """The rows as the order to record, or None with each row's error set."""
    slots, ok = [], True
    for row in rows:
        try:
            init = turn_order.initiative_read(row.init)
        except ValidationError as err:
            row.error, ok = " ".join(err.messages), False
            continue
        members = row.members
        if members:
            if not all(pk in in_play for pk in members):
                row.error, ok = _("This one is no longer in play: take it out."), False
                continue
            slots.append(
                turn_order.Slot(
                    pj=members[0], also=tuple(members[1:]), init=init, esfuerzo=not row.calm
                )
            )
        elif row.new is not None:
            names = row.new.names(row.name)
            if not row.name or max(map(len, names)) > turn_order.NAME_MAX:
                row.error, ok = (
                    _("A name of at most %(n)s characters.") % {"n": turn_order.NAME_MAX},
                    False,
                )
                continue
            if not 1 <= row.new.count <= services.COPIES_MAX:
                row.error, ok = _("That line is no longer in the order."), False
                continue
            # PNJ made when the order is saved (_made): the line's number for now.
            slots.append(
                turn_order.Slot(
                    npc=-(row.new.number), name=row.name, init=init, esfuerzo=not row.calm
                )
            )
        elif row.npc is not None:
            if not row.name:
                row.error, ok = _("Give it a name."), False
                continue
            if len(row.name) > turn_order.NAME_MAX:
                row.error, ok = (
                    _("A name of at most %(n)s characters.") % {"n": turn_order.NAME_MAX},
                    False,
                )
                continue
            slots.append(turn_order.Slot(npc=row.npc, name=row.name, init=init))
        else:
            row.error, ok = _("That line is no longer in the order."), False
    return slots if ok else None


def addable(
    characters: list,
    taken: set[int],
    now: turn_order.Fight | None,
    last: turn_order.Fight | None = None,
) -> list[dict]:
    """Who in play may join the order ("Who"): a PNJ says so, and why it is out of the
    fight when it was taken out of it, or out of the `last` one when none is on (putting
    it back is the DJ's choice)."""
    out = now.out if now is not None else last.out if last is not None else {}
    found = []
    for c in characters:
        if c.pk in taken:
            continue
        note = _("PNJ") if c.is_pnj else ""
        if c.is_pnj and c.pk in out:
            why = WHY.get(out[c.pk], out[c.pk])
            note = (
                _("PNJ, out of the fight: %(why)s")
                if now is not None
                else _("PNJ, out of the last fight: %(why)s")
            ) % {"why": why}
        found.append({"pk": c.pk, "name": c.name, "note": note})
    return found


def label(
    rows: list[Row], names: dict[int, str], in_play: dict, campaign: Campaign | None = None
) -> None:
    """Each line's name and hint, as the page shows them; with `campaign` playing with
    prolonged effort, whether a line has no FUE (R27 needs one: its rounds are never
    esfuerzo)."""
    templates = (
        {t.pk: t for t in campaign.templates.all()}
        if campaign is not None and campaign.esfuerzo_prolongado
        else None
    )
    for i, row in enumerate(rows):
        row.joins = i > 0 and joinable(row, in_play) and joinable(rows[i - 1], in_play)
        row.label = (
            ", ".join(names.get(pk, "?") for pk in row.members)
            if row.members
            else ", ".join(names_of(row)) or row.name
        )
        pnj = row.pj is not None and row.pj in in_play and in_play[row.pj].is_pnj
        row.no_fue = templates is not None and _no_fue(row, in_play, templates)  # type: ignore[attr-defined]
        row.hint = (  # type: ignore[attr-defined]  # for the template
            _("group")
            if len(row.members) > 1
            else _("PNJ")
            if pnj
            else _("new group, one turn")
            if row.new and row.new.count > 1
            else _("new PNJ")
            if row.new
            else _("PJ")
        )


def _no_fue(row: Row, in_play: dict, templates: dict) -> bool:
    """Whether one of a line's characters (or the Plantilla of its new PNJ) has no FUE."""
    if row.new is not None:
        template = templates.get(row.new.template)
        return template is None or "FUE" not in template.attributes
    return any(pk in in_play and "FUE" not in in_play[pk].attributes for pk in row.members)

"""The DJ's table, fight side: the turn order's page, and passing or ending a turn.

The order is set on a page of its own (start a fight, or change its order): the rows are
the form, and each move (up, down, out, add, sort by initiative) comes back as the same page
with nothing written, so it works with or without JavaScript. Passing the turn and ending
the fight are taps on the board, answered like the clock bar's (every card and the panels).
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from .. import selectors, services, turn_order
from ..access import campaign_for_dj
from ..models import Campaign
from ..numbers import whole
from ..present import board as present_board
from ..requests import AuthedHttpRequest
from .answers import idempotency_key, summaries
from .party import party_done, party_refuse

TEMPLATE = "campaign/fight.html"


class Row:
    """One line of the order form and the initiative typed: a PJ or PNJ ("pj:12"), a group
    of PNJ who share a turn ("pj:12+13+14"), a PNJ to make when the order is saved
    ("new:<n>:<template pk or 0>", its name typed), or, in a fight from before PNJ, someone
    named with no card ("npc:<n>")."""

    def __init__(self, slot: str, name: str = "", init: str = "") -> None:
        self.slot, self.name, self.init = slot, name, init
        self.error = ""
        self.label = name

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
    def new(self) -> tuple[int, int] | None:
        """A PNJ to make: (its number on the page, its template's pk or 0)."""
        kind, _sep, rest = self.slot.partition(":")
        number, _sep, template = rest.partition(":")
        if kind != "new" or whole(number) is None or whole(template or "0") is None:
            return None
        return whole(number) or 0, whole(template or "0") or 0


def _name(text: str | None) -> str:
    """A name as typed, its spaces tidied, without NUL (PostgreSQL refuses it in jsonb)."""
    return " ".join((text or "").replace("\x00", "").split())


def _rows_from(request: AuthedHttpRequest) -> list[Row]:
    slots = request.POST.getlist("slot")[: turn_order.SLOTS_MAX + 1]
    names = request.POST.getlist("name")
    inits = request.POST.getlist("init")
    return [
        Row(
            slot,
            _name(names[i] if i < len(names) else "")[: turn_order.NAME_MAX * 2],
            (inits[i] if i < len(inits) else "").strip()[:12],
        )
        for i, slot in enumerate(slots)
    ]


def _rows_of(now: turn_order.Fight | None, characters) -> list[Row]:
    if now is None:
        return [Row(f"pj:{c.pk}") for c in characters]
    return [
        Row(
            "pj:" + "+".join(map(str, s.members)) if s.pj is not None else f"npc:{s.npc}",
            s.name,
            "" if s.init is None else str(s.init),
        )
        for s in now.order
    ]


def initiative_of(text: str) -> int | None:
    """The initiative typed ("", "12", "-1"); ValueError when it is not a whole number."""
    if not text:
        return None
    sign = -1 if text[:1] in ("-", "−") else 1
    value = whole(text.lstrip("-−+"), digits=6)
    if value is None:
        raise ValueError(text)
    return sign * value


def _move(
    rows: list[Row],
    step: str,
    request: AuthedHttpRequest,
    in_play: dict,
    now: turn_order.Fight | None,
    campaign: Campaign,
) -> str:
    """Apply one move of the form to `rows` (in place); an error to show, or ""."""
    doing, _sep, where = step.partition(":")
    if doing not in ("up", "down", "drop", "sort", "add"):
        return _("Unknown action.")  # no button of the page sends it
    line = whole(where)
    if doing in ("up", "down", "drop") and (line is None or line >= len(rows)):
        return _("That line is no longer in the order.")
    i = line or 0  # for up, down and drop: the line, checked just above
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
                keyed.append((row, initiative_of(row.init)))
            except ValueError:
                row.error, bad = _("A whole number, or blank."), True
        if bad:
            return _("Type each initiative as a whole number, or leave it blank.")
        keyed.sort(key=lambda pair: (pair[1] is None, -(pair[1] or 0)))  # stable
        rows[:] = [row for row, _value in keyed]
    elif doing == "add":
        return _add(rows, request, in_play, now, campaign)
    return ""


def _add(
    rows: list[Row],
    request: AuthedHttpRequest,
    in_play: dict,
    now: turn_order.Fight | None,
    campaign: Campaign,
) -> str:
    """The form's "add" move: a PJ or PNJ in play joins the order's end, or new PNJ do
    (named, ×N, or copies of the Plantilla of that name), made when the order is saved."""
    chosen = request.POST.get("new", "")
    init = (request.POST.get("new_init") or "").strip()[:12]
    try:
        initiative_of(init)
    except ValueError:
        return _("Type the initiative as a whole number, or leave it blank.")
    taken = {pk for row in rows for pk in row.members}
    if chosen.startswith("pj:"):
        pk = whole(chosen[3:])
        if pk not in in_play or pk in taken:
            return _("Choose a PJ or PNJ in play who is not in the order yet.")
        rows.append(Row(chosen, "", init))
    else:
        name = _name(request.POST.get("new_name"))
        count = whole(request.POST.get("new_count") or "1", digits=3)
        if not name and not init:
            return ""  # nothing typed to add (Enter in another field): the page as it is
        if not name:
            return _("Name whoever joins the order (an enemy, an ally…).")
        if count is None or not 1 <= count <= services.COPIES_MAX:
            return _("How many: from 1 to %(n)s.") % {"n": services.COPIES_MAX}
        room = turn_order.NAME_MAX - (3 if count > 1 else 0)
        if len(name) > room:
            return _("A name of at most %(n)s characters.") % {"n": room}
        template = next(
            (t for t in campaign.templates.all() if t.name.casefold() == name.casefold()), None
        )
        number = max((row.new[0] for row in rows if row.new), default=0)
        names = services.pnj_names(
            campaign, template.name if template else name, count, also_taken=[r.name for r in rows]
        )
        for i, each in enumerate(names, start=1):
            rows.append(Row(f"new:{number + i}:{template.pk if template else 0}", each, init))
    if len(rows) > turn_order.SLOTS_MAX:
        rows.pop()
        return _("At most %(n)s in a fight's order.") % {"n": turn_order.SLOTS_MAX}
    return ""


def _slots(rows: list[Row], in_play: dict) -> list[turn_order.Slot] | None:
    """The rows as the order to record, or None with each row's error set."""
    slots, ok = [], True
    for row in rows:
        try:
            init = initiative_of(row.init)
        except ValueError:
            row.error, ok = _("A whole number, or blank."), False
            continue
        if init is not None and not turn_order.INIT_RANGE[0] <= init <= turn_order.INIT_RANGE[1]:
            row.error, ok = (
                _("From %(low)s to %(high)s.")
                % {"low": turn_order.INIT_RANGE[0], "high": turn_order.INIT_RANGE[1]},
                False,
            )
            continue
        members = row.members
        if members:
            if not all(pk in in_play for pk in members):
                row.error, ok = _("This one is no longer in play: take it out."), False
                continue
            slots.append(turn_order.Slot(pj=members[0], also=tuple(members[1:]), init=init))
        elif row.new is not None:
            if not row.name or len(row.name) > turn_order.NAME_MAX:
                row.error, ok = (
                    _("A name of at most %(n)s characters.") % {"n": turn_order.NAME_MAX},
                    False,
                )
                continue
            # A PNJ made when the order is saved (_record_order): its number for now.
            slots.append(turn_order.Slot(npc=-(row.new[0]), name=row.name, init=init))
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


@require_http_methods(["GET", "POST"])
@login_required
def fight_setup(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Start a fight with an order, or change the order of the one going on."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    characters = selectors.board_characters(campaign=campaign) + selectors.board_pnj(
        campaign=campaign
    )
    in_play = {c.pk: c for c in characters}
    now = selectors.fight_now(campaign=campaign)
    error, status = "", 200
    if request.method == "GET":
        rows = _rows_of(now, characters)
    elif request.POST.get("mode") == "start" and now is not None:
        # Another tab started the fight meanwhile: this page shows that fight's order now.
        rows = _rows_of(now, characters)
        error, status = (
            _("A fight was started meanwhile (in another tab?): here is its order."),
            409,
        )
    else:
        rows = _rows_from(request)
        step = request.POST.get("step", "")
        if step:
            error = _move(rows, step, request, in_play, now, campaign)
            status = 422 if error else 200
        else:
            slots = _slots(rows, in_play)
            if slots is None:
                error, status = _("Some lines need a fix: see each one."), 422
            elif not slots:
                error, status = _("Put someone in the order first."), 422
            else:
                try:
                    with transaction.atomic():
                        slots = _made(request, campaign, rows, slots)
                        _record_order(request, campaign, now, slots)
                except ValidationError as err:
                    error, status = " ".join(err.messages), 409
                else:
                    return redirect("board", slug=campaign.slug)
    names = selectors.character_names(campaign=campaign)
    for row in rows:
        row.label = ", ".join(names.get(pk, "?") for pk in row.members) if row.members else row.name
        pnj = row.pj is not None and row.pj in in_play and in_play[row.pj].is_pnj
        row.hint = (  # type: ignore[attr-defined]  # for the template
            _("group")
            if len(row.members) > 1
            else _("PNJ")
            if pnj
            else _("new PNJ")
            if row.new
            else _("PJ")
        )
    taken = {pk for row in rows for pk in row.members}
    context = {
        "campaign": campaign,
        "rows": rows,
        "addable": [c for c in characters if c.pk not in taken],
        "templates": campaign.templates.order_by("name"),
        "fight": now,
        "fight_current": turn_order.slot_name(now.current_slot, names)
        if now and now.current_slot
        else "",
        "error": error,
        "active": "board",
    }
    return render(request, TEMPLATE, context, status=status)


def _made(
    request: AuthedHttpRequest, campaign: Campaign, rows: list[Row], slots: list
) -> list[turn_order.Slot]:
    """`slots` with the PNJ its new lines stand for made now (inside the order's
    transaction: both or neither), each with its name, from its Plantilla if it has one."""
    templates = {t.pk: t for t in campaign.templates.all()}
    key = idempotency_key(request)
    out = []
    for row, slot in zip(rows, slots, strict=True):
        if row.new is None:
            out.append(slot)
            continue
        made = services.pnj_create(
            campaign=campaign,
            name=row.name,
            template=templates.get(row.new[1]),
            actor=request.user,
            idempotency_key=f"{key}:n{row.new[0]}" if key else "",
        )[0]
        out.append(turn_order.Slot(pj=made.pk, init=slot.init))
    return out


def _record_order(
    request: AuthedHttpRequest, campaign: Campaign, now: turn_order.Fight | None, slots: list
) -> None:
    names = selectors.character_names(campaign=campaign)
    if now is None:
        services.fight_start(
            campaign=campaign,
            order=slots,
            actor=request.user,
            idempotency_key=idempotency_key(request),
        )
        first = turn_order.slot_name(slots[0], names)
        messages.success(request, _("The fight starts: %(name)s's turn.") % {"name": first})
    else:
        services.fight_order(
            campaign=campaign,
            order=slots,
            expected=request.POST.get("turn", ""),
            actor=request.user,
            idempotency_key=idempotency_key(request),
        )
        after = selectors.fight_now(campaign=campaign)
        changed = (
            _("The turn order is changed: %(name)s's turn.")
            if after.round == now.round
            else _(
                "The turn order is changed. Nobody left in it had yet to act this round, "
                "so round %(round)s begins: %(name)s's turn."
            )
        )
        messages.success(
            request,
            changed
            % {"name": turn_order.slot_name(after.current_slot, names), "round": after.round},
        )
        to_come = {s.key for s in now.order[now.current + 1 :]}
        skipped = [s for s in after.order[: after.current] if s.key in to_come]
        if skipped:
            messages.warning(
                request,
                _(
                    "%(names)s had not acted yet and now come before the turn: "
                    "they act again next round."
                )
                % {"names": ", ".join(turn_order.slot_name(s, names) for s in skipped)},
            )


@require_POST
@login_required
def fight_pass(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """The turn whose it is passes (a PJ's turn end with it; the round after the last)."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    names = selectors.character_names(campaign=campaign)
    before = selectors.fight_now(campaign=campaign)
    seen = campaign.last_seq
    try:
        records = services.fight_pass(
            campaign=campaign,
            expected=request.POST.get("turn", ""),
            actor=request.user,
            idempotency_key=idempotency_key(request),
        )
    except ValidationError as err:
        # The turn had moved on (another tab's tap): the fight as it is now comes with it.
        now = ""
        if err.code == "stale":
            panels = present_board.panels(selectors.board_view(campaign=campaign, session=False))
            now = render_to_string(
                "campaign/board/_fight.html", {**panels, "campaign": campaign, "oob": True}, request
            )
        return party_refuse(
            request, campaign, " ".join(err.messages), 409, slot="fight-error", also=now
        )
    if before is None or all(record.seq <= seen for record in records):
        # A repeated tap (its key recorded before this page's request): the pass it
        # recorded then, told as it is; the fight may have moved on, or ended, since.
        return party_done(request, campaign, summaries(records))
    return party_done(request, campaign, [_pass_toast(records, before, names, campaign)])


def _pass_toast(records, before: turn_order.Fight, names: dict, campaign: Campaign) -> dict:
    """One toast for a pass: whose turn ended (or was lost) and whose it is now, with the
    rule trail of every event the tap recorded (the Shock leve it ended, the TS it raised)."""
    toasts = summaries(records)
    lost = any(r.event.get("kind") == turn_order.KIND and r.event.get("lost") for r in records)
    assert before.current_slot is not None  # a turn passed: there was one to pass
    passed = turn_order.slot_name(before.current_slot, names)
    after = selectors.fight_now(campaign=campaign)
    title = (_("%(name)s loses the turn") if lost else _("End of %(name)s's turn")) % {
        "name": passed
    }
    if after is not None and after.current_slot is not None:
        title += " → " + _("%(name)s's turn") % {
            "name": turn_order.slot_name(after.current_slot, names)
        }
        if after.round != before.round:
            title += " · " + _("round %(round)s") % {"round": after.round}
    lines = [line for toast in toasts for line in toast["lines"]]
    text = " — ".join([title, *(f"{who}: {html}" for who, html in lines)])
    return {"title": title, "lines": lines, "text": text}


@require_POST
@login_required
def fight_end(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """End the fight going on: its order stays in the history."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    try:
        record = services.fight_end(
            campaign=campaign,
            expected=request.POST.get("turn", ""),
            archive_enemies=request.POST.get("enemies") == "archive",
            actor=request.user,
            idempotency_key=idempotency_key(request),
        )
    except ValidationError as err:
        return party_refuse(request, campaign, " ".join(err.messages), 409, slot="fight-error")
    return party_done(request, campaign, summaries([record]))

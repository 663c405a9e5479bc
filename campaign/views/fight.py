"""The DJ's table, fight side: the turn order's page, and passing or ending a turn.

The order is set on a page of its own (start a fight, or change its order): the rows are
the form (campaign.order_form), and each move (up, down, out, add, sort by initiative) comes
back as the same page with nothing written, so it works with or without JavaScript. The page
follows the fight live (static/js/fight.js) and a save from a page that saw another fight
(who is in it, who left, the round, the turn) is refused with the fight as it is now.
Passing the turn and ending the fight are taps on the board, answered like the clock bar's
(every card and the panels).
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
from ..models import Campaign, Character
from ..numbers import whole
from ..order_form import Adding, Row, addable, label, move, rows_from, rows_of, slots_of
from ..present import board as present_board
from ..present import fight as present_fight
from ..present.events import WHY
from ..requests import AuthedHttpRequest
from .answers import idempotency_key, summaries
from .party import party_done, party_refuse

TEMPLATE = "campaign/fight.html"


@require_http_methods(["GET", "POST"])
@login_required
def fight_setup(request: AuthedHttpRequest, slug: str) -> HttpResponse:
    """Start a fight with an order, or change the order of the one going on. The page says
    when the fight changed since it was shown (`?visto=` with the version a live page saw;
    `cambios=1`: it has changes of its own to keep), and a save from a page that saw
    another fight is refused, answered with the fight as it is now."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    characters = selectors.board_characters(campaign=campaign) + selectors.board_pnj(
        campaign=campaign
    )
    in_play = {c.pk: c for c in characters}
    now = selectors.fight_now(campaign=campaign)
    # With no fight on, the next starts from the last one's groups, without those it took out.
    last = selectors.fight_last(campaign=campaign) if now is None else None
    names = selectors.character_names(campaign=campaign)
    error, status, unsaved = "", 200, ""
    adding = Adding(request.POST if request.method == "POST" else None)
    seen = request.POST.get("fight") if request.method == "POST" else request.GET.get("visto")
    if request.method == "GET":
        rows = rows_of(now, characters, last)
    elif request.POST.get("mode") == "start" and now is not None:
        # Another tab started the fight meanwhile: this page shows that fight's order now.
        rows = rows_of(now, characters)
        error, status = (
            _("A fight was started meanwhile (in another tab?): here is its order."),
            409,
        )
        seen = None
    else:
        rows = rows_from(request)
        step = request.POST.get("step", "")
        if step:
            error = move(rows, step, adding, in_play, campaign)
            status = 422 if error else 200
        elif _stale(request, now):
            error, unsaved, rows = _refused(
                campaign, seen or "", now, rows, names, in_play, characters
            )
            status, seen = 409, None
        else:
            slots = slots_of(rows, in_play)
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
                    if err.code not in ("stale", "changed"):
                        raise
                    # The fight moved on between this answer's read and the write.
                    now = selectors.fight_now(campaign=campaign)
                    last = selectors.fight_last(campaign=campaign) if now is None else None
                    names = selectors.character_names(campaign=campaign)
                    error, unsaved, rows = _refused(
                        campaign, seen or "", now, rows, names, in_play, characters
                    )
                    status, seen = 409, None
                else:
                    return redirect("board", slug=campaign.slug)
    label(rows, names, in_play, campaign)
    taken = {pk for row in rows for pk in row.members}
    no_session = now is None and selectors.open_session(campaign=campaign) is None
    changed = None
    if seen is not None and seen != (now.version if now else ""):
        stale = request.method == "POST" or request.GET.get("cambios") == "1"
        changed = _changed(campaign, seen, now, names, stale=stale)
    context = {
        "campaign": campaign,
        "rows": rows,
        # The hint on groups names the buttons of a line that can join the one above or is
        # a group: said only where one of them is on the page.
        "groups_offered": any(row.joins or len(row.members) > 1 for row in rows),
        "addable": addable(characters, taken, now, last),
        # Starting a fight: the PNJ in play that the last one took out, left out of it.
        "left_out": ", ".join(
            f"{c.name} ({WHY.get(last.out[c.pk], last.out[c.pk])})"
            for c in characters
            if c.is_pnj and c.pk in last.out and c.pk not in taken
        )
        if now is None and last is not None
        else "",
        "templates": campaign.templates.order_by("name"),
        # Starting a fight with no session open: the page says so, and offers to open one.
        "no_session": no_session,
        "next_session": selectors.next_session_number(campaign=campaign) if no_session else None,
        "open_session": request.method == "GET" or bool(request.POST.get("open_session")),
        "fight": now,
        "fight_current": turn_order.slot_name(now.current_slot, names)
        if now and now.current_slot
        else "",
        "error": error,
        "unsaved": unsaved,
        "changed": changed,
        # The page as the fight is (its rows and the form to add empty): a live change may
        # replace it; otherwise it holds the DJ's changes, which a live change keeps.
        "edited": request.method == "POST" and status != 409,
        "adding": adding,
        "sides": Character.Side.choices,
        "active": "board",
    }
    return render(request, TEMPLATE, context, status=status)


def _stale(request: AuthedHttpRequest, now: turn_order.Fight | None) -> bool:
    """Whether a save comes from an order page that saw another fight (or none left)."""
    if request.POST.get("mode") != "order":
        return False
    if now is None:
        return True  # the fight ended meanwhile: saving would start another
    seen = request.POST.get("fight")
    return seen is not None and seen != now.version


def _seen_fight(campaign: Campaign, version: str | None) -> turn_order.Fight | None:
    """The fight a page saw, from its version ("round:turn:seq:digest"), or None."""
    parts = (version or "").split(":")
    seq = whole(parts[2]) if len(parts) == 4 else None
    return selectors.fight_at(campaign=campaign, seq=seq) if seq is not None else None


def _changed(
    campaign: Campaign,
    seen: str,
    now: turn_order.Fight | None,
    names: dict[int, str],
    *,
    stale: bool,
) -> dict:
    """The notice of a fight that changed since the page saw it (`seen`, its version):
    what changed, how it stands, and whether the page holds changes a save would lose."""
    what = present_fight.changes(_seen_fight(campaign, seen), now, names)
    return {"what": "; ".join(what), "now": present_fight.standing(now, names), "stale": stale}


def _refused(
    campaign: Campaign,
    seen: str,
    now: turn_order.Fight | None,
    posted: list[Row],
    names: dict[int, str],
    in_play: dict,
    characters: list,
) -> tuple[str, str, list[Row]]:
    """A save from a page that saw another fight (`seen`, its version): nothing written.
    Why (what changed, in the DJ's words), the page's order that was not saved, and the
    rows of the fight as it is now (one taken out meanwhile is back only if added again)."""
    label(posted, names, in_play)
    # With the initiatives typed: a change made on the page but not saved is one of them.
    unsaved = " → ".join(
        _("%(name)s (initiative %(init)s)") % {"name": row.label, "init": row.init.strip()}
        if row.init.strip()
        else row.label
        for row in posted
    )
    if now is None:
        error = _("Nothing was saved: the fight ended meanwhile (in another tab?).")
        last = selectors.fight_last(campaign=campaign)
        return error, unsaved, rows_of(None, characters, last)
    what = present_fight.changes(_seen_fight(campaign, seen), now, names)
    error = _(
        "Nothing was saved: the fight changed meanwhile (in another tab?): %(what)s. Here "
        "it is as it stands now: make your changes again."
    ) % {"what": "; ".join(what) or present_fight.now_words(now, names)}
    return error, unsaved, rows_of(now, characters)


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
        made = [
            services.pnj_create(
                campaign=campaign,
                name=name,
                side=row.new.side,
                template=templates.get(row.new.template),
                actor=request.user,
                idempotency_key=f"{key}:n{row.new.number + i}" if key else "",
            )[0].pk
            for i, name in enumerate(row.new.names(row.name))
        ]
        out.append(
            turn_order.Slot(
                pj=made[0], also=tuple(made[1:]), init=slot.init, esfuerzo=slot.esfuerzo
            )
        )
    return out


def _record_order(
    request: AuthedHttpRequest, campaign: Campaign, now: turn_order.Fight | None, slots: list
) -> None:
    names = selectors.character_names(campaign=campaign)
    if now is None:
        # Started with no session open, the fight may open the next one (the page's box).
        opened = None
        if request.POST.get("open_session") and selectors.open_session(campaign=campaign) is None:
            opened = services.session_start(campaign=campaign)
        services.fight_start(
            campaign=campaign,
            order=slots,
            actor=request.user,
            idempotency_key=idempotency_key(request),
        )
        first = turn_order.slot_name(slots[0], names)
        messages.success(request, _("The fight starts: %(name)s's turn.") % {"name": first})
        if opened is not None:
            messages.success(
                request,
                _("Session %(number)s is open: the fight belongs to it.")
                % {"number": opened.number},
            )
    else:
        services.fight_order(
            campaign=campaign,
            order=slots,
            expected=request.POST.get("turn", ""),
            version=request.POST.get("fight", ""),
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
        # The turn had moved on (another tab's tap): the fight as it is now comes with it
        # (its panel and the turn bar).
        now = ""
        if err.code == "stale":
            panels = present_board.panels(selectors.board_view(campaign=campaign, session=False))
            context = {**panels, "campaign": campaign, "oob": True}
            now = render_to_string("campaign/board/_fight.html", context, request)
            now += render_to_string("campaign/board/_turnbar.html", context, request)
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

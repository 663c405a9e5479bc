"""Events in words: what was done, and the rule trail it set off, for toasts and the audit.

The trail comes from rules.trail.chain (our own wording); here every rule number in it
becomes a link to its explanation on the rules page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Protocol

from django.urls import reverse
from django.utils.formats import number_format
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from rules import RuleError, texts, trail

from ..models import Character, StateEvent
from ..reference import rule_url
from . import lang
from .board import party_who
from .figures import gap_words

_RULE = re.compile(r"(?<![\w])(R[1-9]\d?)(?![\w])")


def linked(text: str) -> SafeString:
    """Escape `text` and link every rule number in it to the rules page."""

    def link(match: re.Match) -> str:
        rule = match.group(1)
        try:
            return f'<a class="rule" href="{rule_url(rule)}">{rule}</a>'
        except ValueError:
            return rule

    return mark_safe(_RULE.sub(link, str(escape(text))))


def _amount(event: dict) -> str:
    """ "3 rounds", "10 min", "1 day": the time an event passes."""
    for unit in ("rounds", "minutes", "hours", "days"):
        if unit in event:
            n = event[unit]
            count = n if isinstance(n, int) else 2
            if isinstance(n, float):
                n = number_format(n)  # 1,5 in Spanish, as the DJ typed it
            if unit == "rounds":
                return ngettext("%(n)s round", "%(n)s rounds", count) % {"n": n}
            if unit == "minutes":
                if isinstance(event[unit], int) and event[unit] >= 60 and event[unit] % 60 == 0:
                    return gap_words(event[unit] * 60)  # 960 min reads 16 h
                return _("%(n)s min") % {"n": n}
            if unit == "hours":
                return _("%(n)s h") % {"n": n}
            return ngettext("%(n)s day", "%(n)s days", count) % {"n": n}
    return ""


def _suffer(event: dict, code: str) -> str:
    try:
        return texts.card(event["type"], event["grade"], event.get("variant"), lang=code)["title"]
    except (KeyError, TypeError):  # a void event is stored as it came (a backup)
        return _("Suffers %(what)s") % {"what": f"{event.get('type')} {event.get('grade')}"}


def _treatment(event: dict, code: str) -> str:
    what = _("Curación") if event.get("kind") == "heal" else _("Cirugía")
    if event.get("success") is False:
        what = _("%(what)s (failed)") % {"what": what}
    if event.get("healer"):
        what = _("%(what)s by %(healer)s") % {"what": what, "healer": event["healer"]}
    return what


def _check_label(event: dict, code: str) -> str:
    try:
        return texts.check_text(event["check"], code)["label"]
    except (KeyError, TypeError):
        return str(event.get("check"))


def _save(event: dict, code: str) -> str:
    label = _check_label(event, code)
    result = _("success") if event.get("success") else _("failure")
    if isinstance(event.get("ts_roll"), int):
        return _("%(check)s: rolled %(die)s → %(result)s") % {
            "check": label,
            "die": event["ts_roll"],
            "result": result,
        }
    return f"{label}: {result}"


def _dismiss(event: dict, code: str) -> str:
    return _("Dismissed: %(check)s") % {"check": _check_label(event, code)}


def _time(event: dict, code: str) -> str:
    amount = _amount(event)
    activity = event.get("activity")
    if activity == "reposo":
        amount += f" ({_('calm reposo') if event.get('calm') else _('reposo')})"
    elif activity == "esfuerzo":
        amount += f" ({_('esfuerzo')})"
    return "+" + amount


def _sleep(event: dict, code: str) -> str:
    hours = event.get("hours")
    span = gap_words(round(hours * 3600)) if isinstance(hours, int | float) else hours
    text = _("Falls asleep for %(span)s") % {"span": span} if hours else _("Falls asleep")
    if event.get("descanso") is False:
        text += " · " + _("cannot count as a Descanso")
    return text


# Why one left the fight (turn_order.OUT_WHY), as the history says it.
WHY = {
    "incapacitado": gettext_lazy("incapacitated"),
    "inconsciente": gettext_lazy("unconscious"),
    "huye": gettext_lazy("flees"),
    "otro": gettext_lazy("another reason"),
}


def out_label(name: str, why: object) -> str:
    """ "Bandido 2 leaves the fight (flees)"; `why` None: not said (a player who may not
    read that PNJ's state)."""
    reason = WHY.get(why) if isinstance(why, str) else None
    if reason is None:
        return capfirst(_("%(name)s leaves the fight") % {"name": name})
    return capfirst(_("%(name)s leaves the fight (%(why)s)") % {"name": name, "why": reason})


def _fight(event: dict, code: str) -> str:
    doing = event.get("do")
    if doing == "start":
        return _("The fight starts")
    if doing == "order":
        # One taken out of the fight: its name is the viewer's to read (event_label with
        # names; the history's fights.fight_row for players, who may not know it).
        return _("One leaves the fight") if "out" in event else _("New turn order")
    if doing == "pass":
        return _("Turn lost") if event.get("lost") else _("Turn passes")
    if event.get("archived"):
        return _("The fight ends; its enemies are archived")
    return _("The fight ends")


def _recover(event: dict, code: str) -> str:
    try:
        title = texts.card(event["type"], event["grade"], lang=code)["title"]
    except (KeyError, TypeError):
        title = f"{event.get('type')} {event.get('grade')}"
    return _("Recovers %(what)s") % {"what": title}


def _special(event: dict, code: str) -> str:
    name = texts.special_label(str(event.get("name")), code)
    return (_("Gains %(name)s") if event.get("on") else _("Loses %(name)s")) % {"name": name}


def _attributes(event: dict, code: str) -> str:
    scores = event.get("scores") if isinstance(event.get("scores"), dict) else {}
    if not scores:
        return _("No scores")
    return _("Scores: %(scores)s") % {
        "scores": ", ".join(
            f"{texts.score_label(k, code)} {v}" for k, v in texts.score_order(scores)
        )
    }


_LABELS: dict[str, Callable[[dict, str], str]] = {
    "suffer": _suffer,
    "heal": _treatment,
    "surgery": _treatment,
    "save": _save,
    "dismiss": _dismiss,
    "time": _time,
    "descanso": lambda event, code: _("Descanso (8 h of sleep)"),
    "sleep": _sleep,
    "wake": lambda event, code: _("Woken by force") if event.get("forced") else _("Wakes up"),
    "turn_end": lambda event, code: _("End of turn"),
    "fight": _fight,
    "safe": lambda event, code: _("No longer exposed to the cause"),
    "progress": lambda event, code: _("The Afección moves on a phase"),
    "recover": _recover,
    "special": _special,
    "attributes": _attributes,
    "start": lambda event, code: _("Joins the campaign"),
}


def event_label(event: dict, names: Mapping[int, str] | None = None) -> str:
    """The action an event records, in a few words of the active language. `names`: the
    DJ's, who reads by name (and why) the one a step of the fight took out of it."""
    out = event.get("out") if event.get("kind") == "fight" else None
    if names is not None and isinstance(out, dict) and out.get("pj") in names:
        return out_label(names[out["pj"]], out.get("why"))
    kind = event.get("kind")
    label = _LABELS.get(kind) if isinstance(kind, str) else None
    return label(event, lang()) if label is not None else str(kind)


def trail_text(effects: list[dict]) -> str:
    """The rule trail of one PJ's effects, as plain text."""
    text = trail.chain(effects, lang())
    return text.removeprefix("→ ").strip()


def _notable(effects: list[dict]) -> bool:
    """Whether a campaign-wide event did something to this PJ worth a line."""
    return any(e.get("rule") != "base" for e in effects)


def event_summary(
    record: StateEvent,
    *,
    roll: tuple[int, int | str] | None = None,
    roster: tuple[dict[int, str], set[int]] | None = None,
) -> dict:
    """A toast for a recorded event: {"title", "lines": [(who, trail html)], "text"}.

    A campaign-wide event needs the campaign's `roster` (selectors.roster): every PJ's name
    and those in play, to say whom it reached."""
    label = event_label(record.event)
    if roll is not None:
        die, score = roll
        if isinstance(record.event.get("ts_roll"), int):
            # A repeated idempotency key returns the first record: show the die it holds.
            die = record.event["ts_roll"]
        label += " " + _("(1d6 = %(die)s against %(score)s)") % {"die": die, "score": score}
    lines = []
    names = {}
    if record.character is not None:
        who = record.character.name
        names[str(record.character.pk)] = record.character.name
    else:
        if roster is None:
            raise ValueError("a campaign-wide event's summary needs the campaign's roster")
        by_pk, in_play = roster
        who = party_who(record, by_pk, in_play)
        names = {str(pk): by_pk.get(int(pk), "?") for pk in record.effects}
    for pk, effects in record.effects.items():
        if record.character_id is None and not _notable(effects):
            continue
        text = trail_text(effects)
        if text and text != label:  # a trail that only repeats the action says nothing more
            lines.append((names.get(pk, "?"), linked(text)))
    title = format_html("{}: {}", who, label)
    plain = f"{who}: {label}"
    if lines:
        plain += " — " + " · ".join(f"{name}: {str(html)}" for name, html in lines)
    return {"title": title, "lines": lines, "text": _strip_tags(plain)}


def _strip_tags(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text)


class VoidRefusal(Protocol):
    """A refused void (services.EventVoidRefused): the event, and every later one that
    would no longer hold, each with whose it is and the rules' reason."""

    event: StateEvent
    blocking: list[tuple[StateEvent, Character, RuleError]]


VOID_NAMED = 5  # later events a refused void names; the rest are counted ("and 3 more")


def _event_link(event: StateEvent) -> SafeString:
    url = reverse("event_detail", args=[event.campaign.slug, event.seq])
    return format_html('<a href="{}">#{}</a>', url, event.seq)


def void_refused(refused: VoidRefusal) -> SafeString:
    """Why a void was refused, in the active language, as HTML: each later event that would
    no longer hold (the first VOID_NAMED, then how many more), a link to its page, whose
    it is, what it was and the rules' reason."""
    code = lang()
    blocking = refused.blocking
    if len(blocking) == 1:
        event, character, error = blocking[0]
        text = _(
            "#%(seq)s cannot be voided: %(character)s's %(blocking)s (%(what)s) would no "
            "longer hold. %(reason)s"
        )
        return mark_safe(
            text
            % {
                "seq": refused.event.seq,
                "blocking": _event_link(event),
                "what": escape(event_label(event.event)),
                "character": escape(character.name),
                "reason": escape(error.message(code)),
            }
        )
    items = [
        _("%(character)s's %(blocking)s (%(what)s): %(reason)s")
        % {
            "blocking": _event_link(event),
            "what": escape(event_label(event.event)),
            "character": escape(character.name),
            "reason": escape(error.message(code).rstrip(".")),
        }
        for event, character, error in blocking[:VOID_NAMED]
    ]
    more = len(blocking) - VOID_NAMED
    if more > 0:
        items.append(ngettext("and %(n)s more", "and %(n)s more", more) % {"n": more})
    text = _(
        "#%(seq)s cannot be voided: %(count)s later events would no longer hold without it: "
        "%(events)s. Void those first, the newest first."
    )
    return mark_safe(
        text % {"seq": refused.event.seq, "count": len(blocking), "events": "; ".join(items)}
    )

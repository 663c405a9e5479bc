"""A backup's log folded in memory with the rules, as event_record and event_void would
have left it: every event checked before anything is written."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.utils.translation import gettext as _

import rules

from .. import turn_order
from ..present import lang
from .check import Backup, BackupError, _Event


@dataclass
class Fold:
    """Each PJ's log folded as event_record and event_void would have left it."""

    backup: Backup
    options: dict
    # by ref: the state after the PJ's non-void log so far, and that log's last seq
    state: dict[int, dict] = field(default_factory=dict)
    last_seq: dict[int, int] = field(default_factory=dict)
    # by ref: positions (in backup.events) of the PJ's log so far, void events included
    log: dict[int, list[int]] = field(default_factory=dict)
    # by ref: the PJ's void events so far as (index in its log, void_at, state before it)
    voided: dict[int, list[tuple[int, datetime, dict]]] = field(default_factory=dict)
    latest_void: dict[int, datetime] = field(default_factory=dict)

    @classmethod
    def start(cls, backup: Backup) -> Fold:
        fold = cls(backup=backup, options=rules.normalize_options(backup.options))
        for c in backup.characters:
            fold.state[c.ref] = rules.initial_state()
            fold.last_seq[c.ref] = c.joined_seq
            fold.log[c.ref] = []
            fold.voided[c.ref] = []
        return fold

    def events(self) -> Iterator[tuple[_Event, dict[int, list], list[tuple[int, dict]]]]:
        """Every event with its effects and the states it leaves, by ref, in seq order.

        A PJ's log is its own events and the campaign-wide ones that reached it
        (selectors.in_log_of): those its `party` lists, or, in a file without it, the PJ and
        allies in the party with a seq above their joined_seq; a campaign-wide event goes to
        each of them in file order (event_record's pk order). BackupError names an event the
        rules refuse. Afterwards `state` and `last_seq` hold each PJ's current state.
        """
        characters = self.backup.characters
        names = {c.ref: c.name for c in characters}
        for position, event in enumerate(self.backup.events):
            if event.ref is not None:
                targets = [event.ref]
            elif turn_order.is_fight(event.event):
                targets = []  # the turn order reaches no PJ (campaign.turn_order)
            elif event.party is not None:
                targets = [c.ref for c in characters if c.ref in event.party]
            else:
                # The party: the PJ, and the allies in it (other PNJ live on their own clock).
                targets = [
                    c.ref
                    for c in characters
                    if c.joined_seq < event.seq and (c.kind == "pj" or c.pnj.get("in_party"))
                ]
            effects: dict[int, list] = {}
            states: list[tuple[int, dict]] = []
            for ref in targets:
                if event.void_at is None:
                    try:
                        state, fx = rules.apply(self.state[ref], event.event, self.options)
                    except rules.RuleError as err:
                        raise _refused(event, names[ref], err) from None
                    except Exception as err:  # a field the engine did not expect
                        raise _unreadable(event, names[ref], err) from err
                    self.state[ref] = state
                    self.last_seq[ref] = event.seq
                else:
                    state, fx = _void_state(self, ref, event)
                self.log[ref].append(position)
                effects[ref] = fx
                states.append((ref, state))
            yield event, effects, states


def _refused(event: _Event, name: str, err: rules.RuleError) -> BackupError:
    return BackupError(
        _("%(place)s: event #%(seq)s (%(kind)s) breaks a rule for %(character)s: %(reason)s")
        % {
            "place": event.place,
            "seq": event.seq,
            "kind": event.event.get("kind"),
            "character": name,
            "reason": err.message(lang()),
        }
    )


def _unreadable(event: _Event, name: str, err: Exception) -> BackupError:
    return BackupError(
        _("%(place)s: event #%(seq)s (%(kind)s) cannot be applied to %(character)s: %(reason)s")
        % {
            "place": event.place,
            "seq": event.seq,
            "kind": event.event.get("kind"),
            "character": name,
            "reason": f"{type(err).__name__}: {err}",
        }
    )


def _void_state(fold: Fold, ref: int, event: _Event) -> tuple[dict, list]:
    """The state and effects a void event kept: those of its last fold while it counted.

    event_record folded it on the log of its time, and each earlier void made while it
    still counted folded it again without the event voided (event_void); once void, it is
    left alone. So it follows the PJ's earlier events that were not void yet when it was:
    the non-void ones and those voided after it.
    """
    voided_at = event.void_at
    assert voided_at is not None  # Fold.events calls this for a void event only
    base = fold.state[ref]
    log = fold.log[ref]
    voided = fold.voided[ref]
    if voided and fold.latest_void[ref] > voided_at:
        # An earlier event was voided after this one: fold from just before it, with it.
        start, before = next((i, s) for i, when, s in voided if when > voided_at)
        base = before
        events = fold.backup.events
        for position in log[start:]:
            earlier = events[position]
            if earlier.void_at is None or earlier.void_at > voided_at:
                try:
                    base, _fx = rules.apply(base, earlier.event, fold.options)
                except Exception:  # a RuleError, or a field the engine did not expect
                    base = fold.state[ref]
                    break
    voided.append((len(log), voided_at, fold.state[ref]))
    if ref not in fold.latest_void or fold.latest_void[ref] < voided_at:
        fold.latest_void[ref] = voided_at
    try:
        return rules.apply(base, event.event, fold.options)
    except Exception:  # a RuleError, or a field the engine did not expect
        # It counts for nothing: a void event the rules now refuse leaves the state as it was.
        return base, []


def fold_check(backup: Backup) -> None:
    """Fold the whole log without writing: a refused event stops the import before any write."""
    for _item in Fold.start(backup).events():
        pass

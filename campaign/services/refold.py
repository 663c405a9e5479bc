"""Replay-fix: re-fold a campaign's log under the current rules and rewrite its
projections to match (`replay_check --fix`). The check that finds what to fix is
history.replay's."""

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

import rules

from ..models import Campaign, Character, CharacterSnapshot, EventSnapshot, StateEvent
from ..selectors import character_log
from .changes import lock


class RefoldRefused(ValueError):
    """A campaign's log no longer replays under the current rules: nothing was rewritten."""

    def __init__(self, *, event: StateEvent, character: Character, error: rules.RuleError):
        self.event = event
        self.character = character
        self.error = error
        super().__init__(
            f"event #{event.seq} ({event.kind}, {character.name}) no longer replays: "
            f"{error.message('en')}"
        )


@dataclass
class Refold:
    """What re-folding one campaign rewrote."""

    campaign: Campaign
    characters: int = 0
    # PJ name -> its public state before and after, for those it changed
    changed: dict[str, tuple[dict, dict]] = field(default_factory=dict)
    event_states: int = 0  # per-event states rewritten
    event_effects: int = 0  # events whose effects trail was rewritten


def campaign_refold(*, campaign: Campaign) -> Refold:
    """Re-fold every PJ of a campaign from its log and rewrite the projections to match.

    One transaction: snapshots, per-event states and effects trails are all rewritten, or
    (RefoldRefused, naming the first event that breaks) none is.
    """
    report = Refold(campaign=campaign)
    with transaction.atomic():
        # Lock the campaign row as every writer does, so no event lands mid-refold.
        campaign = lock(campaign)
        options = campaign.rule_options()
        touched_events: dict[int, StateEvent] = {}
        for character in campaign.characters.select_related("snapshot").order_by("pk"):
            report.characters += 1
            log = list(character_log(character=character))
            saved = {
                s.event_id: s
                for s in EventSnapshot.objects.filter(character=character, event__in=log)
            }
            key = str(character.pk)
            state = rules.initial_state()
            rewritten = []
            for event in log:
                try:
                    state, effects = rules.apply(state, event.event, options)
                except rules.RuleError as err:
                    raise RefoldRefused(event=event, character=character, error=err) from err
                event = touched_events.get(event.pk, event)
                if event.effects.get(key) != effects:
                    event.effects = {**event.effects, key: effects}
                    touched_events[event.pk] = event
                snapshot = saved.get(event.pk)
                if snapshot is None:
                    snapshot = EventSnapshot(
                        event=event, character=character, seq=event.seq, state=state
                    )
                    rewritten.append(snapshot)
                elif snapshot.state != state:
                    snapshot.state = state
                    rewritten.append(snapshot)
            EventSnapshot.objects.bulk_create([s for s in rewritten if s.pk is None])
            EventSnapshot.objects.bulk_update([s for s in rewritten if s.pk is not None], ["state"])
            report.event_states += len(rewritten)
            before = rules.public_state(character.snapshot.state)
            after = rules.public_state(state)
            if before != after:
                report.changed[character.name] = (before, after)
            seq = log[-1].seq if log else character.snapshot.seq
            if character.snapshot.state != state or character.snapshot.seq != seq:
                CharacterSnapshot.objects.filter(character=character).update(
                    state=state, seq=seq, updated_at=timezone.now()
                )
        StateEvent.objects.bulk_update(touched_events.values(), ["effects"])
        report.event_effects = len(touched_events)
    return report

"""The replay audit: fold each PJ's whole log again and compare it with the projections
(the rewrite after a rules upgrade is services.refold's).

With services.refold and a backup's import (backup.fold), the only code that folds a whole
log; never on a request.
"""

from dataclasses import dataclass

import rules

from ..models import Campaign, Character
from ..selectors import character_log


@dataclass(frozen=True)
class Mismatch:
    character: Character
    detail: str


def state_diff(before: dict, after: dict) -> list[str]:
    """What differs between two public states, one "key: old → new" line per leaf."""
    lines = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            for sub in sorted(old.keys() | new.keys()):
                if old.get(sub) != new.get(sub):
                    lines.append(f"{key}.{sub}: {old.get(sub)!r} → {new.get(sub)!r}")
        else:
            lines.append(f"{key}: {old!r} → {new!r}")
    return lines


def character_replay_check(*, character: Character) -> Mismatch | None:
    """None when a fresh replay of the PJ's non-void log equals its snapshot."""
    events = list(character_log(character=character))
    try:
        replayed = rules.replay([e.event for e in events], character.campaign.rule_options())
    except rules.RuleError as err:
        bad = events[err.index] if err.index is not None and err.index < len(events) else None
        where = f"event #{bad.seq} ({bad.kind}): " if bad is not None else ""
        return Mismatch(character, f"the log no longer replays: {where}{err.message('en')}")
    stored = rules.public_state(character.snapshot.state)
    if replayed != stored:
        return Mismatch(character, "; ".join(state_diff(stored, replayed)))
    return None


def campaign_replay_check(*, campaign: Campaign | None = None) -> tuple[int, list[Mismatch]]:
    """Check every PJ (of one campaign, or all); returns (PJ checked, mismatches)."""
    characters = Character.objects.select_related("campaign", "snapshot").order_by(
        "campaign__pk", "pk"
    )
    if campaign is not None:
        characters = characters.filter(campaign=campaign)
    mismatches = []
    count = 0
    for character in characters:
        count += 1
        mismatch = character_replay_check(character=character)
        if mismatch is not None:
            mismatches.append(mismatch)
    return count, mismatches

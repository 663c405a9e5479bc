"""The replay audit: fold each PJ's whole log again and compare with its snapshot.

The one place besides event_void that reads a log end to end; never on a hot path.
"""

from dataclasses import dataclass

import rules

from .models import Campaign, Character
from .selectors import character_log


@dataclass(frozen=True)
class Mismatch:
    character: Character
    detail: str


def character_replay_check(*, character: Character) -> Mismatch | None:
    """None when a fresh replay of the PJ's non-void log equals its snapshot."""
    events = [e.event for e in character_log(character=character)]
    try:
        replayed = rules.replay(events, character.campaign.rule_options())
    except rules.RuleError as err:
        return Mismatch(character, f"the log no longer replays: {err}")
    stored = rules.public_state(character.snapshot.state)
    if replayed != stored:
        keys = sorted(
            k for k in replayed.keys() | stored.keys() if replayed.get(k) != stored.get(k)
        )
        return Mismatch(character, f"snapshot differs from replay in: {', '.join(keys)}")
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

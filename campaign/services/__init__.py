"""Writes. Every change to a campaign, its log and its projections goes through here.

By use case: `events` (record, void), `party` (the party's time, rounds, Descanso),
`checks` (Tirar todas), `fight` (the turn order), `reminders` (the DJ's turn notes),
`campaigns`, `characters`, `players`, `sessions`, `refold` (replay-fix) and `restore` (a
backup written as a new campaign; imported from its module: it reads the backup package,
which reads services).

Each write locks the campaign row first (changes.lock): that serializes the campaign's
writers, so `seq` and the change cursor stay gapless and unique and the snapshots never
miss an event, on SQLite and PostgreSQL alike.
"""

from ..live.channel import change_record
from .campaigns import (
    campaign_create,
    campaign_update,
    catalogue_entry_delete,
    catalogue_entry_save,
    catalogue_seed,
    membership_set,
)
from .changes import Gone, lock
from .characters import (
    character_archive,
    character_create,
    character_restore,
    character_secrets_set,
    character_update,
    powers_validate,
    scores_validate,
)
from .checks import ROLL_ALL_MAX, RolledAll, checks_roll_all
from .events import EventVoidRefused, event_record, event_void, events_void, tap_undo
from .fight import fight_end, fight_order, fight_pass, fight_start
from .party import WatchRefused, catch_up, party_event, round_pass
from .players import (
    WRONG_CODES,
    code_display,
    code_normalize,
    invitation_accept,
    invitation_cancel,
    invitation_create,
    invitation_find,
    player_remove,
    wrong_code_record,
    wrong_codes,
)
from .pnj import (
    COPIES_MAX,
    area_event,
    fight_join,
    fight_out,
    pnj_create,
    pnj_names,
    pnj_settings_set,
    pnj_update,
    template_delete,
    template_save,
)
from .refold import Refold, RefoldRefused, campaign_refold
from .reminders import reminder_add, reminder_delete
from .sessions import session_end, session_note_set, session_recap_set, session_start

__all__ = [
    "COPIES_MAX",
    "area_event",
    "fight_join",
    "fight_out",
    "pnj_create",
    "pnj_names",
    "pnj_settings_set",
    "pnj_update",
    "template_delete",
    "template_save",
    "reminder_add",
    "reminder_delete",
    "Refold",
    "RefoldRefused",
    "campaign_refold",
    "EventVoidRefused",
    "Gone",
    "WRONG_CODES",
    "wrong_code_record",
    "wrong_codes",
    "fight_end",
    "fight_order",
    "fight_pass",
    "fight_start",
    "campaign_create",
    "campaign_update",
    "catalogue_entry_delete",
    "catalogue_entry_save",
    "catalogue_seed",
    "change_record",
    "code_display",
    "code_normalize",
    "character_archive",
    "character_create",
    "character_restore",
    "character_secrets_set",
    "character_update",
    "catch_up",
    "checks_roll_all",
    "ROLL_ALL_MAX",
    "RolledAll",
    "event_record",
    "event_void",
    "events_void",
    "tap_undo",
    "party_event",
    "WatchRefused",
    "round_pass",
    "invitation_accept",
    "invitation_cancel",
    "invitation_create",
    "invitation_find",
    "lock",
    "membership_set",
    "player_remove",
    "powers_validate",
    "scores_validate",
    "session_end",
    "session_note_set",
    "session_recap_set",
    "session_start",
]

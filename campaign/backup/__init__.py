"""Campaign backups: a campaign as one versioned JSON file, and that file as a new campaign.

A module per step: `export`, `check` (the whole file), `fold` (its log folded in memory
with the rules); the restore writes, as every change does, through the services
(services.restore: written in bulk).

The format ("zodiac-campaign", version 2; version 1 files still import) is described in
docs/backup-format.md. It holds what cannot be derived: the campaign and its options,
catalogue, memberships, Plantillas, PJ and PNJ (with what players see of them), game
sessions, the DJ's reminders and the whole log (voided and secret events included, each
event as stored, with its dice seed). The projections (snapshots, per-event states,
effects trails), the change cursor, invitations and idempotency keys are left out: the
import rebuilds the first from the log and the others are transient.

The export streams: events are read in chunks and written one line each, so memory does not
grow with the log. The import checks the whole file first (nothing is written for a bad
one), folds the log with the rules in memory (the stored states are never trusted: an event
the rules refuse stops the import), then writes everything in bulk, in one transaction.
"""

from .check import EXPORT_CHUNK, MAX_BYTES, BackupError, backup_check, backup_parse
from .export import export_batched, export_chunks, export_filename

__all__ = [
    "EXPORT_CHUNK",
    "MAX_BYTES",
    "BackupError",
    "backup_check",
    "backup_parse",
    "export_batched",
    "export_chunks",
    "export_filename",
]

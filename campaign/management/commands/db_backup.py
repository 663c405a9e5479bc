"""`manage.py db_backup FILE`: the whole database to FILE, while the server runs.

SQLite: a consistent copy (`VACUUM INTO`), itself an SQLite database. PostgreSQL: a
`pg_dump` archive (custom format). Restore either with `manage.py db_restore FILE`.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campaign.backup.database import DatabaseCopyError, database_backup


class Command(BaseCommand):
    help = "Copy the whole database to a new file (SQLite: VACUUM INTO; PostgreSQL: pg_dump)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the new file to write")

    def handle(self, *args, **options):
        path = Path(options["file"])
        try:
            database_backup(path)
        except DatabaseCopyError as err:
            raise CommandError(str(err)) from None
        self.stdout.write(f"Database copied to {path} ({path.stat().st_size:,} bytes).")

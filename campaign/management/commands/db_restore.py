"""`manage.py db_restore FILE`: replace the whole database with a `db_backup` copy.

Stop the server first. Everything recorded after the copy was made is lost: keep the
current database aside (`db_backup` it) before restoring an older one.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campaign.backup.database import DatabaseCopyError, database_restore


class Command(BaseCommand):
    help = "Replace the whole database with a copy made by db_backup (stop the server first)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="a copy made by manage.py db_backup")
        parser.add_argument(
            "--yes", action="store_true", help="do not ask: the current data is replaced"
        )

    def handle(self, *args, **options):
        path = Path(options["file"])
        if not options["yes"]:
            answer = input(f"Replace the whole database with {path}? Type 'yes': ")
            if answer.strip().lower() != "yes":
                raise CommandError("Nothing restored.")
        try:
            database_restore(path)
        except DatabaseCopyError as err:
            raise CommandError(str(err)) from None
        self.stdout.write(f"Database restored from {path}.")

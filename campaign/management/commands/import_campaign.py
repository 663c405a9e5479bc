"""`manage.py import_campaign FILE [--name NAME] [--dj USERNAME]`: a backup as a new
campaign (docs/backup-format.md). The log is re-folded with the current rules; one
transaction, so a file that cannot be imported writes nothing.
"""

import sys
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import translation
from django.utils.translation import gettext as _

from campaign.backup import BackupError
from campaign.services.restore import campaign_import


class Command(BaseCommand):
    help = "Import a campaign backup (JSON, format zodiac-campaign version 1) as a new campaign."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the backup file ('-' for standard input)")
        parser.add_argument(
            "--name", default="", help="the new campaign's name (default: the file's)"
        )
        parser.add_argument(
            "--dj",
            default="",
            metavar="USERNAME",
            help="make this account the DJ (default: the file's DJs that have an account here)",
        )
        parser.add_argument(
            "--lang",
            choices=[code for code, _name in settings.LANGUAGES],
            default=settings.LANGUAGE_CODE,
            help="the language of the messages (default: %(default)s)",
        )

    def handle(self, *args, **options):
        with translation.override(options["lang"]):
            self._import(options)

    def _import(self, options) -> None:
        dj = None
        if options["dj"]:
            User = get_user_model()
            dj = User._default_manager.filter(**{User.USERNAME_FIELD: options["dj"]}).first()
            if dj is None:
                raise CommandError(
                    _("No account “%(username)s” on this server.") % {"username": options["dj"]}
                )
        path = options["file"]
        try:
            data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        except OSError as err:
            raise CommandError(
                _("Cannot read %(file)s: %(reason)s.") % {"file": path, "reason": err.strerror}
            ) from None
        try:
            result = campaign_import(data, dj=dj, name=options["name"])
        except BackupError as err:
            hint = " (--dj USERNAME)" if err.code == "no_dj" else ""
            raise CommandError(f"{err}{hint}") from None
        for note in result.notes:
            self.stdout.write(self.style.WARNING(note))
        self.stdout.write(
            self.style.SUCCESS(
                _("Imported “%(name)s” as /c/%(slug)s/: %(counts)s.")
                % {
                    "name": result.campaign.name,
                    "slug": result.campaign.slug,
                    "counts": result.counts,
                }
            )
        )

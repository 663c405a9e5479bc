"""`manage.py export_campaign SLUG [-o FILE]`: a campaign's backup, as JSON
(docs/backup-format.md). Written as it is read, so a long log takes no more memory than a short one.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campaign.backup import export_chunks
from campaign.models import Campaign


class Command(BaseCommand):
    help = "Write a campaign's backup (JSON, format zodiac-campaign version 1)."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the campaign's slug (its address: /c/<slug>/)")
        parser.add_argument(
            "-o", "--output", help="the file to write (default: standard output)", default=""
        )

    def handle(self, *args, **options):
        campaign = Campaign.objects.filter(slug=options["slug"]).first()
        if campaign is None:
            raise CommandError(f"No campaign with slug {options['slug']!r}.")
        if not options["output"]:
            for chunk in export_chunks(campaign):
                self.stdout.write(chunk, ending="")
            return
        path = Path(options["output"])
        try:
            with path.open("w", encoding="utf-8") as out:
                for chunk in export_chunks(campaign):
                    out.write(chunk)
        except OSError as err:
            raise CommandError(f"Cannot write {path}: {err.strerror}.") from None
        self.stderr.write(f"Wrote {campaign.slug} to {path}.")

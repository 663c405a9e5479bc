"""`manage.py replay_check`: every PJ's snapshot must equal a fresh replay of its log."""

from django.core.management.base import BaseCommand, CommandError

from campaign.audit import campaign_replay_check
from campaign.models import Campaign


class Command(BaseCommand):
    help = "Re-fold every PJ from its log and compare with its snapshot."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", help="only the campaign with this slug")

    def handle(self, *args, **options):
        campaign = None
        if options["campaign"]:
            campaign = Campaign.objects.filter(slug=options["campaign"]).first()
            if campaign is None:
                raise CommandError(f"No campaign with slug {options['campaign']!r}.")
        count, mismatches = campaign_replay_check(campaign=campaign)
        for mismatch in mismatches:
            c = mismatch.character
            self.stderr.write(f"MISMATCH {c.campaign.slug}/{c.name}: {mismatch.detail}")
        if mismatches:
            raise CommandError(f"{len(mismatches)} of {count} PJ do not match their log.")
        self.stdout.write(self.style.SUCCESS(f"{count} PJ match their log."))

"""`manage.py replay_check [--fix]`: every PJ's sheet must equal a fresh replay of its log.

After an upgrade of the rules engine a stored sheet may differ from what the log now
folds to. The check names each PJ and what differs; `--fix` re-folds every campaign and
rewrites its projections (one transaction per campaign), reporting each PJ that changed.
"""

from django.core.management.base import BaseCommand, CommandError

from campaign.history.replay import campaign_replay_check, state_diff
from campaign.models import Campaign
from campaign.services.refold import RefoldRefused, campaign_refold


class Command(BaseCommand):
    help = (
        "Re-fold every PJ from its log and compare with its stored sheet; with --fix, "
        "rewrite the sheets, per-event states and effects from the log."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", help="only the campaign with this slug")
        parser.add_argument(
            "--fix",
            action="store_true",
            help="re-fold each campaign and rewrite its projections (one transaction each)",
        )

    def handle(self, *args, **options):
        campaigns = Campaign.objects.order_by("pk")
        if options["campaign"]:
            campaigns = campaigns.filter(slug=options["campaign"])
            if not campaigns.exists():
                raise CommandError(f"No campaign with slug {options['campaign']!r}.")
        if options["fix"]:
            self._fix(list(campaigns))
        else:
            self._check(campaigns.first() if options["campaign"] else None)

    def _check(self, campaign: Campaign | None) -> None:
        count, mismatches = campaign_replay_check(campaign=campaign)
        for mismatch in mismatches:
            c = mismatch.character
            self.stderr.write(f"MISMATCH {c.campaign.slug}/{c.name}: {mismatch.detail}")
        if mismatches:
            raise CommandError(
                f"{len(mismatches)} of {count} PJ and PNJ do not match their log. "
                "Run `manage.py replay_check --fix` to rewrite them from the log."
            )
        self.stdout.write(self.style.SUCCESS(f"{count} PJ and PNJ match their log."))

    def _fix(self, campaigns: list[Campaign]) -> None:
        refused = 0
        for campaign in campaigns:
            try:
                report = campaign_refold(campaign=campaign)
            except RefoldRefused as err:
                refused += 1
                self.stderr.write(f"REFUSED {campaign.slug}: {err} (nothing rewritten)")
                continue
            for name, (before, after) in report.changed.items():
                self.stdout.write(f"CHANGED {campaign.slug}/{name}:")
                for line in state_diff(before, after):
                    self.stdout.write(f"  {line}")
            self.stdout.write(
                f"{campaign.slug}: {report.characters} PJ and PNJ re-folded, "
                f"{len(report.changed)} changed, {report.event_states} event states and "
                f"{report.event_effects} effect trails rewritten."
            )
        if refused:
            raise CommandError(
                f"{refused} of {len(campaigns)} campaigns refused: their log no longer "
                "replays under these rules. Void or correct the named event, then run again."
            )
        self.stdout.write(self.style.SUCCESS(f"{len(campaigns)} campaigns re-folded."))

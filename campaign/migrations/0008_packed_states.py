"""Snapshots keep a PJ's state packed (rules.packed): a pile of unrolled checks is stored as
a count. The states already stored with checks waiting are packed here; the others read the
same either way and are packed when next written."""

from django.db import migrations

import campaign.models


def pack_piles(apps, schema_editor):
    for name in ("CharacterSnapshot", "EventSnapshot"):
        model = apps.get_model("campaign", name)
        waiting = model.objects.filter(state__pending__0__isnull=False)
        for pk, state in waiting.values_list("pk", "state").iterator(chunk_size=500):
            model.objects.filter(pk=pk).update(state=state)  # StateField packs it


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0007_event_snapshot_seq"),
    ]

    operations = [
        migrations.AlterField(
            model_name="charactersnapshot",
            name="state",
            field=campaign.models.StateField(),
        ),
        migrations.AlterField(
            model_name="eventsnapshot",
            name="state",
            field=campaign.models.StateField(),
        ),
        migrations.RunPython(pack_piles, migrations.RunPython.noop, elidable=True),
    ]

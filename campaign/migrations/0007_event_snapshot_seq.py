"""Each event snapshot keeps its event's seq, with an index by PJ and seq: "a PJ's last
state before #n" walks the index back from n instead of joining the whole log."""

from django.db import migrations, models


def copy_seq(apps, schema_editor):
    EventSnapshot = apps.get_model("campaign", "EventSnapshot")
    StateEvent = apps.get_model("campaign", "StateEvent")
    seq = StateEvent.objects.filter(pk=models.OuterRef("event_id")).values("seq")[:1]
    EventSnapshot.objects.update(seq=models.Subquery(seq))


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0006_party_events_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="eventsnapshot",
            name="seq",
            field=models.PositiveIntegerField(default=0),
            preserve_default=False,
        ),
        migrations.RunPython(copy_seq, migrations.RunPython.noop, elidable=True),
        migrations.AddIndex(
            model_name="eventsnapshot",
            index=models.Index(fields=["character", "seq"], name="event_snapshot_pj_seq"),
        ),
    ]

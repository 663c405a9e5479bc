"""Usernames are unique whatever their case ("Mei" and "mei" are one name): an index on
the lower-cased username of Django's user table, on SQLite and PostgreSQL alike."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("campaign", "0003_players_invitations"),
    ]

    operations = [
        migrations.RunSQL(
            sql="CREATE UNIQUE INDEX campaign_username_any_case ON auth_user (LOWER(username));",
            reverse_sql="DROP INDEX campaign_username_any_case;",
        ),
    ]

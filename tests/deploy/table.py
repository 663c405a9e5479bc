"""A table for the topology check, made in a Django shell of the topology's settings:
a campaign, its DJ and its players, each with a PJ, each with a password (the check logs
in through the proxy as a person does)."""

from __future__ import annotations


def make(slug: str, players: int, password: str) -> dict:
    """The campaign `slug`, its DJ `<slug>-dj` and players `<slug>-p<n>`, each playing
    a PJ: {"campaign": id, "slug", "dj": username, "pj": [{"pk", "player"}]}."""
    from django.contrib.auth import get_user_model

    from campaign import services
    from campaign.models import Membership

    users = get_user_model().objects
    dj = users.create_user(f"{slug}-dj", password=password)
    campaign = services.campaign_create(name=slug.title(), slug=slug, dj=dj)
    pj = []
    for n in range(players):
        player = users.create_user(f"{slug}-p{n}", password=password)
        services.membership_set(campaign=campaign, user=player, role=Membership.Role.PLAYER)
        character = services.character_create(
            campaign=campaign,
            name=f"PJ {n}",
            player=player,
            attributes={"FUE": 3, "AGI": 3, "VOL": 3},
        )
        pj.append({"pk": character.pk, "player": player.username})
    return {"campaign": campaign.pk, "slug": slug, "dj": dj.username, "pj": pj}

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


def make_many(count: int, players: int) -> list[dict]:
    """`count` campaigns for the hosted benchmark, each a DJ and `players` players with a
    PJ each, and a fresh session for each of them (a browser or phone of its own):
    [{"campaign", "slug", "cursor", "dj": cookie, "pj": [{"pk", "player", "cookie"}]}]."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore
    from django.db import transaction

    from campaign import services
    from campaign.models import Campaign, Membership

    backend = settings.AUTHENTICATION_BACKENDS[-1]

    def cookie(user) -> str:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = backend
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"

    users = get_user_model()
    tables = []
    for t in range(count):
        with transaction.atomic():
            names = [f"h{t}-dj", *(f"h{t}-p{n}" for n in range(players))]
            made = users.objects.bulk_create([users(username=name) for name in names])
            for user in made:
                user.set_unusable_password()
            users.objects.bulk_update(made, ["password"])
            dj, *people = made
            campaign = services.campaign_create(name=f"Mesa {t}", slug=f"h{t}", dj=dj)
            pj = []
            for n, player in enumerate(people):
                services.membership_set(campaign=campaign, user=player, role=Membership.Role.PLAYER)
                character = services.character_create(
                    campaign=campaign,
                    name=f"PJ {n}",
                    player=player,
                    attributes={"FUE": 3, "AGI": 3, "VOL": 3},
                )
                pj.append({"pk": character.pk, "player": player.pk, "cookie": cookie(player)})
            tables.append(
                {
                    "campaign": campaign.pk,
                    "slug": campaign.slug,
                    "cursor": Campaign.objects.get(pk=campaign.pk).change_cursor,
                    "dj": cookie(dj),
                    "pj": pj,
                }
            )
    return tables

"""`manage.py demo`: load the Demo campaign (idempotent: once loaded, it changes nothing).

Everything is written through campaign.services, so the demo log is a real one:
replay_check passes on it and the snapshots come from the rules engine.
"""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from campaign import services
from campaign.models import Campaign, Membership

DEMO_SLUG = "demo"
DEMO_PASSWORD = "zodiac-demo"
DJ_LOGIN = "dj"

# login, PJ name, scores, powers, notes
PLAYERS = [
    ("aiko", "Aiko", {"FUE": 3, "AGI": 5, "DES": 4, "INT": 3, "VOL": 3}, [], "Arquera."),
    (
        "kenji",
        "Kenji",
        {"FUE": 5, "AGI": 3, "DES": 3, "INT": 2, "VOL": 4},
        ["regeneracion"],
        "Guerrero; sus heridas se cierran solas.",
    ),
    ("mei", "Mei", {"FUE": 2, "AGI": 3, "DES": 4, "INT": 5, "VOL": 4}, [], "Sanadora."),
    ("taro", "Taro", {"FUE": 4, "AGI": 4, "DES": 3, "INT": 3, "VOL": 2}, [], "Explorador."),
]

# (session title, recap, steps). A step is (PJ name or None for everyone, event).
SESSIONS: list[tuple[str, str, list[tuple[str | None, dict]]]] = [
    (
        "Emboscada en el paso de Kiso",
        "Bandidos en el paso. Kenji cayó herido y cerró sus heridas; Mei curó a Aiko. "
        "Noche en la posada.",
        [
            ("Aiko", {"kind": "suffer", "type": "heridas", "grade": "leve"}),
            ("Kenji", {"kind": "suffer", "type": "shock", "grade": "leve"}),
            ("Taro", {"kind": "suffer", "type": "emocion", "grade": "leve", "variant": "miedo"}),
            (None, {"kind": "time", "rounds": 1}),
            ("Kenji", {"kind": "suffer", "type": "heridas", "grade": "grave"}),
            ("Taro", {"kind": "suffer", "type": "fatiga", "grade": "leve"}),
            (None, {"kind": "time", "rounds": 3}),
            ("Kenji", {"kind": "heal", "by_self": True}),
            ("Aiko", {"kind": "heal"}),
            (None, {"kind": "time", "minutes": 10, "activity": "reposo", "calm": True}),
            (None, {"kind": "time", "hours": 5}),
            (None, {"kind": "descanso"}),
            ("Kenji", {"kind": "save", "check": "heridas_leve_descanso", "success": True}),
        ],
    ),
    (
        "La fiebre de Nara",
        "Un oni en el templo. Taro bebió agua envenenada y el veneno avanza; Aiko quedó "
        "aturdida y se recuperó. Mei aún tiembla.",
        [
            (None, {"kind": "time", "hours": 3}),
            ("Taro", {"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "fugu"}),
            (
                "Mei",
                {"kind": "suffer", "type": "emocion", "grade": "grave", "variant": "terror"}
                | {"cause": "el oni del templo"},
            ),
            ("Aiko", {"kind": "suffer", "type": "shock", "grade": "grave"}),
            ("Aiko", {"kind": "turn_end"}),
            ("Aiko", {"kind": "save", "check": "shock_grave_fin_turno", "success": True}),
            ("Kenji", {"kind": "suffer", "type": "heridas", "grade": "leve"}),
            (None, {"kind": "time", "rounds": 2}),
            ("Mei", {"kind": "safe"}),
            (None, {"kind": "time", "hours": 2}),
            ("Taro", {"kind": "progress", "type": "afeccion"}),
            ("Kenji", {"kind": "suffer", "type": "fatiga", "grade": "leve"}),
        ],
    ),
]


# The DJ's side: a Plantilla to make enemies from, and a recurring villain the players have
# met (revealed: they read his name and his state in words).
TEMPLATES = [
    ("Ronin", {"FUE": 4, "AGI": 3, "DES": 3, "VOL": 3}, "Katana; huye si pierde a la mitad."),
]
VILLAIN = ("Oni del templo", {"FUE": 6, "AGI": 2, "VOL": 4}, "Vuelve cada luna nueva.")


class Command(BaseCommand):
    help = "Load the Demo campaign: its DJ, four PJ, two past sessions, a Plantilla and a PNJ."

    def handle(self, *args, **options):
        if Campaign.objects.filter(slug=DEMO_SLUG).exists():
            self.stdout.write("The Demo campaign is already loaded.")
        else:
            with transaction.atomic():
                self._load()
            self.stdout.write(self.style.SUCCESS("Loaded the Demo campaign."))
        logins = ", ".join([DJ_LOGIN] + [login for login, *_rest in PLAYERS])
        self.stdout.write(
            f"Demo logins: {logins} (DJ: {DJ_LOGIN}); password for all: {DEMO_PASSWORD}"
        )

    def _user(self, username: str):
        user, created = get_user_model().objects.get_or_create(username=username)
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
        return user

    def _load(self) -> None:
        # Two weekly sessions in the past, evenings, a few minutes between events.
        clock = timezone.now().replace(minute=0, second=0, microsecond=0) - timedelta(days=15)
        dj = self._user(DJ_LOGIN)
        campaign = services.campaign_create(name="Demo", slug=DEMO_SLUG, dj=dj)
        characters = {}
        for login, name, scores, powers, notes in PLAYERS:
            player = self._user(login)
            services.membership_set(campaign=campaign, user=player, role=Membership.Role.PLAYER)
            characters[name] = services.character_create(
                campaign=campaign,
                name=name,
                player=player,
                attributes=scores,
                powers=powers,
                notes=notes,
                actor=dj,
                recorded_at=clock,
            )
        for title, recap, steps in SESSIONS:
            clock += timedelta(days=7)
            session = services.session_start(campaign=campaign, title=title, started_at=clock)
            for who, event in steps:
                clock += timedelta(minutes=4)
                services.event_record(
                    campaign=campaign,
                    character=characters[who] if who else None,
                    event=event,
                    actor=dj,
                    recorded_at=clock,
                )
            services.session_end(session=session, recap=recap, ended_at=clock + timedelta(hours=1))
            clock += timedelta(hours=1)
        for name, scores, notes in TEMPLATES:
            services.template_save(campaign=campaign, name=name, attributes=scores, notes=notes)
        name, scores, notes = VILLAIN
        villain = services.pnj_create(
            campaign=campaign, name=name, attributes=scores, notes=notes, actor=dj
        )[0]
        services.pnj_settings_set(character=villain, revealed=True)
        services.event_record(
            campaign=campaign,
            character=villain,
            event={"kind": "suffer", "type": "heridas", "grade": "grave"},
            actor=dj,
        )

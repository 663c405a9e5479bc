"""One factory per model. Models with invariants are built through campaign.services."""

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from campaign import services
from campaign.models import (
    Campaign,
    CatalogueEntry,
    Character,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    Membership,
    StateEvent,
)

PASSWORD = "a-test-password"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password(PASSWORD)


class CampaignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Campaign

    name = factory.Sequence(lambda n: f"Campaign {n}")
    slug = factory.Sequence(lambda n: f"campaign-{n}")

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        return services.campaign_create(**kwargs)


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    campaign = factory.SubFactory(CampaignFactory)
    role = Membership.Role.PLAYER


class CharacterFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Character

    campaign = factory.SubFactory(CampaignFactory)
    name = factory.Sequence(lambda n: f"PJ {n}")
    player = None
    attributes = factory.LazyFunction(lambda: {"FUE": 3, "AGI": 3, "DES": 3, "VOL": 3})
    powers = factory.LazyFunction(list)
    notes = ""

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        return services.character_create(**kwargs)


class CharacterSnapshotFactory(factory.django.DjangoModelFactory):
    """A PJ's snapshot exists with the PJ: this makes a PJ and returns its snapshot."""

    class Meta:
        model = CharacterSnapshot

    character = factory.SubFactory(CharacterFactory)

    @classmethod
    def _create(cls, model_class, *args, character, **kwargs):
        return CharacterSnapshot.objects.get(character=character)


class GameSessionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GameSession

    campaign = factory.SubFactory(CampaignFactory)
    number = factory.Sequence(lambda n: n + 1)
    title = factory.Sequence(lambda n: f"Session {n}")
    started_at = factory.LazyFunction(timezone.now)


class StateEventFactory(factory.django.DjangoModelFactory):
    """An event recorded for one PJ through services.event_record."""

    class Meta:
        model = StateEvent

    character = factory.SubFactory(CharacterFactory)
    campaign = factory.SelfAttribute("character.campaign")
    event = factory.LazyFunction(lambda: {"kind": "time", "minutes": 1})

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        return services.event_record(**kwargs)


class EventSnapshotFactory(factory.django.DjangoModelFactory):
    """Made with its event: this records one and returns the PJ's state after it."""

    class Meta:
        model = EventSnapshot

    event = factory.SubFactory(StateEventFactory)

    @classmethod
    def _create(cls, model_class, *args, event, **kwargs):
        return EventSnapshot.objects.get(event=event, character=event.character)


class CatalogueEntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CatalogueEntry

    campaign = factory.SubFactory(CampaignFactory)
    name = factory.Sequence(lambda n: f"veneno {n}")
    kind = CatalogueEntry.Kind.VENENO
    effect = "Un veneno de prueba."
    effect_leve = "Náuseas."
    effect_grave = "Vómitos."
    effect_persistente = "Postración."

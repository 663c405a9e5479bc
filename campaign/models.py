"""Campaigns, their PJ and the append-only log of Estados Alterados events.

The log (StateEvent) is the truth; CharacterSnapshot and EventSnapshot are projections
kept in step by campaign.services in the same transaction as each write.
"""

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

import rules

# Event kinds recorded by making a PJ or a PNJ, or set on its page, not tapped at the table:
# Deshacer leaves them (edit the PJ instead; a PNJ a tap made: selectors.pnj_made).
NOT_UNDONE = ("attributes", "start")


class Campaign(models.Model):
    name = models.CharField(_("name"), max_length=100)
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    # The campaign options of the rules (rules/README.md, rules.OPTION_DEFAULTS).
    especificos = models.BooleanField(_("specific E.Esp"), default=False)
    esfuerzo_prolongado = models.BooleanField(_("prolonged effort"), default=False)
    round_seconds = models.PositiveIntegerField(
        _("seconds per round"), default=6, validators=[MinValueValidator(1)]
    )
    # Players see the other PJ's cards too (what the DJ keeps secret stays hidden).
    players_see_party = models.BooleanField(_("players see the party"), default=False)
    # The seq of the campaign's latest event. Writers lock this row to take the next
    # number, which keeps seq gapless and unique under concurrent writers.
    last_seq = models.PositiveIntegerField(default=0, editable=False)
    # The cursor of the campaign's latest CampaignChange: every write a page shows
    # (event, void, PJ edit, session start or end) advances it under the same row lock.
    change_cursor = models.PositiveBigIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["name"]
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")

    def __str__(self) -> str:
        return self.name

    def rule_options(self) -> dict:
        """The options dict that rules.apply and rules.replay take."""
        return {
            "especificos": self.especificos,
            "esfuerzo_prolongado": self.esfuerzo_prolongado,
            "round_seconds": self.round_seconds,
        }


class Membership(models.Model):
    class Role(models.TextChoices):
        DJ = "dj", _("DJ")
        PLAYER = "player", _("Player")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(_("role"), max_length=10, choices=Role.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "campaign"], name="membership_one_per_user")
        ]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self) -> str:
        return f"{self.user} @ {self.campaign} ({self.get_role_display()})"


class Side(models.TextChoices):
    """A PNJ's side in the fights."""

    ENEMIGO = "enemigo", _("enemy")
    ALIADO = "aliado", _("ally")


class Template(models.Model):
    """A Plantilla: a kind of PNJ the DJ keeps for the table (a small bestiary), from which
    PNJ are made in two taps. A PNJ made from one copies it; editing it changes no PNJ."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="templates")
    name = models.CharField(_("name"), max_length=60)
    side = models.CharField(_("side"), max_length=8, choices=Side.choices, default=Side.ENEMIGO)
    attributes = models.JSONField(_("attributes"), default=dict, blank=True)
    powers = models.JSONField(_("powers"), default=list, blank=True)
    notes = models.TextField(_("notes"), blank=True)

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="template_name_unique")
        ]
        verbose_name = _("PNJ template")
        verbose_name_plural = _("PNJ templates")

    def __str__(self) -> str:
        return self.name


class Character(models.Model):
    """A PJ, or a PNJ (the DJ's enemies and allies): the same log, rules and card.
    Create and change it through campaign.services so its log follows."""

    class Kind(models.TextChoices):
        PJ = "pj", _("PJ")
        PNJ = "pnj", _("PNJ")

    Side = Side

    class Shows(models.TextChoices):
        """What players see of a revealed PNJ besides its name."""

        NOMBRE = "nombre", _("its name only")
        PALABRAS = "palabras", _("its state in words")
        FICHA = "ficha", _("its whole card")

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="characters")
    name = models.CharField(_("name"), max_length=100)
    kind = models.CharField(_("kind"), max_length=3, choices=Kind.choices, default=Kind.PJ)
    # A PNJ's side ("" for a PJ).
    side = models.CharField(_("side"), max_length=8, choices=Side.choices, blank=True)
    template = models.ForeignKey(
        Template,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="copies",
        verbose_name=_("template"),
    )
    # An ally travelling with the PJ: the party's time and Descanso reach it (PJ: unused).
    in_party = models.BooleanField(_("in the party"), default=False)
    # What players see of a PNJ (campaign.reveal): nothing of who it is until `revealed`;
    # `lurking`, not even that it is there until its first turn in a fight.
    revealed = models.BooleanField(_("revealed"), default=False)
    lurking = models.BooleanField(_("hidden until its first turn"), default=False)
    # Copies added with "one turn for all" outside a fight: the first of them, whose turn
    # they share when the next fight's order page starts (order_form; a fight's own groups
    # are in its log).
    turn_with = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", editable=False
    )
    shows = models.CharField(
        _("players see"), max_length=8, choices=Shows.choices, default=Shows.PALABRAS
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="characters",
        verbose_name=_("player"),
    )
    # Scores by abbreviation, e.g. {"FUE": 4, "AGI": 3, "VOL": 3}.
    attributes = models.JSONField(_("attributes"), default=dict, blank=True)
    # Powers that change the rules, e.g. ["regeneracion"].
    powers = models.JSONField(_("powers"), default=list, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    # Campaign-wide events with a higher seq apply to this PJ; earlier ones predate it.
    joined_seq = models.PositiveIntegerField(default=0, editable=False)
    # Archived PJ are hidden from the board; their log is kept and they can be restored.
    archived_at = models.DateTimeField(_("archived at"), null=True, blank=True)
    # Afección sources and E.Esp names the DJ keeps from the player (the DJ sees them).
    secret_names = models.JSONField(_("secret names"), default=list, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "name"], name="character_name_unique_in_campaign"
            )
        ]
        verbose_name = _("character")
        verbose_name_plural = _("characters")

    def __str__(self) -> str:
        return self.name

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def is_pnj(self) -> bool:
        return self.kind == self.Kind.PNJ


class Invitation(models.Model):
    """A link, and a short code to read aloud, that makes whoever accepts it a PJ's player.

    Single use and expiring; create and accept them through campaign.services.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("PJ")
    )
    token = models.CharField(max_length=64, unique=True, editable=False)
    code = models.CharField(_("code"), max_length=12, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    expires_at = models.DateTimeField(_("expires at"))
    used_at = models.DateTimeField(_("used at"), null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("used by"),
    )
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")

    def __str__(self) -> str:
        return f"{self.character} ({self.code})"

    @property
    def is_pending(self) -> bool:
        return self.used_at is None and self.revoked_at is None and timezone.now() < self.expires_at


class GameSession(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sessions")
    number = models.PositiveIntegerField(_("number"))
    title = models.CharField(_("title"), max_length=200, blank=True)
    started_at = models.DateTimeField(_("started at"))
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)
    recap = models.TextField(_("recap"), blank=True)
    # The DJ's own note on the session: never shown to a player (the recap is theirs too).
    dj_note = models.TextField(_("DJ's note"), blank=True)
    # Written by session_end: {character pk: {"name": ..., "state": public state}}.
    sheet_summary = models.JSONField(_("sheet summary"), default=dict, blank=True)

    class Meta:
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="session_number_unique")
        ]
        verbose_name = _("game session")
        verbose_name_plural = _("game sessions")

    def __str__(self) -> str:
        return f"{self.campaign} #{self.number} {self.title}".strip()

    @property
    def is_open(self) -> bool:
        return self.ended_at is None


class StateEvent(models.Model):
    """One rules/README.md §7 event in a campaign's log. Never edited: a correction voids it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="events")
    # None: a campaign-wide event (time, a party Descanso) for every PJ.
    character = models.ForeignKey(
        Character,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="events",
    )
    session = models.ForeignKey(
        GameSession,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="events",
    )
    seq = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # The event as the rules read it, with the seed the app drew for its dice.
    event = models.JSONField()
    # What applying it changed, per PJ: {character pk: [effect, ...]}.
    effects = models.JSONField(default=dict)
    void_at = models.DateTimeField(null=True, blank=True)
    void_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    void_reason = models.TextField(blank=True)
    # Set by clients that may send the same write twice (a double tap); "" for none.
    idempotency_key = models.CharField(max_length=100, blank=True, default="")
    # Visible to the DJ only.
    secret = models.BooleanField(default=False)

    class Meta:
        ordering = ["campaign", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="event_seq_unique"),
            models.UniqueConstraint(
                fields=["campaign", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="event_idempotency_key_unique",
            ),
        ]
        indexes = [
            # The campaign-wide events, newest first (the round, the fight, the party's time):
            # a few among a long log of one PJ's events each, read without scanning them.
            models.Index(
                fields=["campaign", "seq"],
                condition=Q(character__isnull=True),
                name="event_party_seq",
            ),
        ]
        verbose_name = _("event")
        verbose_name_plural = _("events")

    def __str__(self) -> str:
        who = self.character.name if self.character is not None else _("everyone")
        return f"#{self.seq} {self.kind} ({who})"

    @property
    def kind(self) -> str:
        return str(self.event.get("kind", "?"))

    @property
    def is_void(self) -> bool:
        return self.void_at is not None


class StateField(models.JSONField):
    """A PJ's rules state, kept in the database in its packed form (rules.packed): each
    pending check is one letter, not a listed object, so a state stays small however long
    the log.
    Python always sees the state as rules.apply gives it."""

    def get_prep_value(self, value):
        return super().get_prep_value(rules.packed(value))

    def from_db_value(self, value, expression, connection):
        return rules.unpacked(super().from_db_value(value, expression, connection))


class CharacterSnapshot(models.Model):
    """A PJ's current state: its log folded up to `seq`."""

    character = models.OneToOneField(
        Character, on_delete=models.CASCADE, primary_key=True, related_name="snapshot"
    )
    # The engine's full state (rules.initial_state() shape, "engine" key included).
    state = StateField()
    seq = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("character snapshot")
        verbose_name_plural = _("character snapshots")

    def __str__(self) -> str:
        return f"{self.character} @ #{self.seq}"


class EventSnapshot(models.Model):
    """A PJ's state right after one event of its log, so state_at never folds."""

    event = models.ForeignKey(StateEvent, on_delete=models.CASCADE, related_name="snapshots")
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="event_snapshots"
    )
    state = StateField()
    # The event's seq, kept here too: "a PJ's last state before #n" is then read by walking
    # an index back from n, however long the log (set by whoever writes the snapshot).
    seq = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "character"], name="event_snapshot_unique")
        ]
        indexes = [models.Index(fields=["character", "seq"], name="event_snapshot_pj_seq")]
        verbose_name = _("event snapshot")
        verbose_name_plural = _("event snapshots")

    def __str__(self) -> str:
        return f"{self.character} after #{self.event.seq}"


class CatalogueEntry(models.Model):
    """An E.Esp, disease or poison with the table's own short effect text."""

    class Kind(models.TextChoices):
        ESPECIAL = "especial", _("Special state")
        ENFERMEDAD = "enfermedad", _("Disease")
        VENENO = "veneno", _("Poison")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="catalogue")
    # The name used in events and states, e.g. "desprevenido", "veneno de fugu".
    name = models.CharField(_("name"), max_length=100)
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    effect = models.TextField(_("effect"), blank=True)
    # Diseases and poisons act by the Afección phase.
    effect_leve = models.TextField(_("effect at phase leve"), blank=True)
    effect_grave = models.TextField(_("effect at phase grave"), blank=True)
    effect_persistente = models.TextField(_("effect at phase persistente"), blank=True)

    class Meta:
        ordering = ["campaign", "kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="catalogue_name_unique")
        ]
        verbose_name = _("catalogue entry")
        verbose_name_plural = _("catalogue entries")

    def __str__(self) -> str:
        return self.name


class CampaignChange(models.Model):
    """One step of a campaign's change cursor: what a live page must re-fetch.

    Append-only; a page that reconnects asks for every change after the last cursor it saw.
    """

    class Kind(models.TextChoices):
        EVENT = "event", _("event")
        VOID = "void", _("void")
        CHARACTER = "character", _("character")
        SESSION = "session", _("session")
        CAMPAIGN = "campaign", _("campaign")
        # A catalogue text changed: the cards that show that entry (no page loads anew).
        CATALOGUE = "catalogue", _("catalogue")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="changes")
    cursor = models.PositiveBigIntegerField()
    # The PJ whose card changed; None: every card (campaign-wide time, a session, options).
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=12, choices=Kind.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["campaign", "cursor"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "cursor"], name="change_cursor_unique")
        ]
        verbose_name = _("change")
        verbose_name_plural = _("changes")

    def __str__(self) -> str:
        return f"{self.campaign} @{self.cursor} {self.kind}"


class WrongCode(models.Model):
    """A wrong invitation code typed from an address: counted in the database, so every
    worker of the server shares the limit and a restart does not reset it."""

    address = models.GenericIPAddressField(unpack_ipv4=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["address", "at"], name="wrong_code_address_at")]
        verbose_name = _("wrong invitation code")
        verbose_name_plural = _("wrong invitation codes")

    def __str__(self) -> str:
        return f"{self.address} @{self.at:%Y-%m-%d %H:%M}"


def max_length(model: type[models.Model], name: str) -> int:
    """The max_length of a model's text field, for a form or a check to hold to."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field) or field.max_length is None:
        raise TypeError(f"{model.__name__}.{name} has no max_length")
    return field.max_length


class Reminder(models.Model):
    """A DJ's note pinned to a fight: to the start or the end of a combatant's turn, or to a
    round. The board shows it when that comes, once or every time; players never see it."""

    class When(models.TextChoices):
        START = "start", _("at the start of the turn")
        END = "end", _("at the end of the turn")
        ROUND = "round", _("in the round")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="reminders")
    text = models.CharField(_("note"), max_length=120)
    when = models.CharField(_("when"), max_length=5, choices=When.choices)
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, null=True, blank=True, related_name="reminders"
    )
    round = models.PositiveIntegerField(_("round"), null=True, blank=True)
    every = models.BooleanField(_("every time"), default=False)
    # The seq of the pass that spent a one-time note (a void of that pass brings it back).
    spent_seq = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["campaign", "created_at", "pk"]
        verbose_name = _("reminder")
        verbose_name_plural = _("reminders")

    def __str__(self) -> str:
        return self.text

"""Forms of the setup screens: campaign, PJ, catalogue entries, game sessions, a backup's import.

They parse and check input only; the writes are campaign.services' (the board's forms,
which turn taps into events, live in campaign/taps.py).
"""

import re
from typing import TypedDict, cast

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, BaseUserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, MaxValueValidator
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from rules.texts import score_label
from rules.vocab import SCORES

from . import backup
from .limits import ROUND_SECONDS_MAX
from .models import Campaign, CatalogueEntry, Character, GameSession, max_length
from .numbers import whole
from .services.campaigns import catalogue_name_normalize

# The five attributes every PJ has, in the order of the sheet.
MAIN_SCORES = SCORES
SCORE_MAX = 10
REGENERACION = "regeneracion"
ROUND_SECONDS_ERROR = _("Seconds per round must be a whole number from 1 to 600.")
_OTHER_SCORE = re.compile(r"^([^\W\d_]{1,10})\s*[:=]?\s*(\d{1,3})$")


class WholeNumberField(forms.IntegerField):
    """A whole number written as people write one: ASCII digits only (numbers.whole).
    Django's IntegerField passes the text to int(), which also takes "1_0", "٣" or "+3"."""

    def to_python(self, value: object) -> int | None:
        text = str(value if value is not None else "").strip()
        if text in self.empty_values:
            return None
        number = whole(text, digits=9)
        if number is None and text.isascii() and text.isdigit() and self.max_value is not None:
            # A whole number, only too long to read ("999999999999"): say the range it misses.
            raise ValidationError(
                self.error_messages.get("max_value", MaxValueValidator.message),
                code="max_value",
                params={"limit_value": self.max_value},
            )
        if number is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return number


def _score_field(abbreviation: str) -> forms.IntegerField:
    """An attribute score: a whole number from 0 to SCORE_MAX, or blank when not set."""
    return WholeNumberField(label=abbreviation, min_value=0, max_value=SCORE_MAX, required=False)


class CampaignForm(forms.Form):
    """A new campaign, or a campaign's settings (`options_locked`: options read-only)."""

    name = forms.CharField(
        label=_("Name"),
        max_length=max_length(Campaign, "name"),
        error_messages={"required": _("Enter the campaign's name.")},
        help_text=_("How the table calls it, e.g. “La sombra de Kiso”."),
    )
    especificos = forms.BooleanField(
        label=_("Specific E.Esp"),
        required=False,
        help_text=_("Optional rule: a persistent wound or emotion leaves a named E.Esp (R7, R14)."),
    )
    esfuerzo_prolongado = forms.BooleanField(
        label=_("Prolonged exertion"),
        required=False,
        help_text=_("Optional rule: long exertion calls for FUE saves against fatigue (R27)."),
    )
    round_seconds = WholeNumberField(
        label=_("Seconds per round"),
        min_value=1,
        max_value=ROUND_SECONDS_MAX,
        initial=6,
        error_messages={
            "required": ROUND_SECONDS_ERROR,
            "invalid": ROUND_SECONDS_ERROR,
            "min_value": ROUND_SECONDS_ERROR,
            "max_value": ROUND_SECONDS_ERROR,
        },
        help_text=_("How long a combat round lasts in game time: 1 to 600 (usually 6)."),
    )

    players_see_party = forms.BooleanField(
        label=_("Players see the party"),
        required=False,
        help_text=_(
            "Each player's sheet also shows the other PJ's cards (never what you keep secret)."
        ),
    )

    def __init__(self, *args, options_locked: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.options_locked = options_locked
        for field in ("especificos", "esfuerzo_prolongado", "round_seconds"):
            # A disabled field ignores what is posted and keeps its initial value.
            self.fields[field].disabled = options_locked

    def cleaned_options(self) -> dict:
        """The options to save: none once they are locked."""
        if self.options_locked:
            return {}
        return {
            k: self.cleaned_data[k] for k in ("especificos", "esfuerzo_prolongado", "round_seconds")
        }


def parse_other_scores(text: str) -> dict[str, int]:
    """ "PER 3, CAR 2" → {"PER": 3, "CAR": 2}; ValidationError naming the bad part."""
    scores: dict[str, int] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        match = _OTHER_SCORE.match(part)
        if match is None:
            raise ValidationError(
                _("“%(part)s” is not an abbreviation and a whole number, like “PER 3”."),
                params={"part": part},
                code="other_score",
            )
        abbr, value = match.group(1).upper(), int(match.group(2))
        if abbr in MAIN_SCORES:
            raise ValidationError(
                _("Give %(abbr)s in its own box above."),
                params={"abbr": _score(abbr)},
                code="main_score",
            )
        if abbr in scores:
            raise ValidationError(
                _("%(abbr)s is given twice."), params={"abbr": abbr}, code="repeated_score"
            )
        if value > SCORE_MAX:
            raise ValidationError(
                _("%(abbr)s: scores go from 0 to %(max)s."),
                params={"abbr": abbr, "max": SCORE_MAX},
                code="score_range",
            )
        scores[abbr] = value
    return scores


def scores_in_order(attributes: dict) -> list[tuple[str, int]]:
    """A PJ's scores for display: the five attributes first, in sheet order (each as the
    page's language abbreviates it: FUE reads STR in English), then the rest."""
    main = [(_score(abbr), attributes[abbr]) for abbr in MAIN_SCORES if abbr in attributes]
    return main + [(k, v) for k, v in attributes.items() if k not in MAIN_SCORES]


def _score(abbr: str) -> str:
    """A score's abbreviation in the active language (the log keeps the Spanish one)."""
    return score_label(abbr, get_language() or "es")


def powers_shown(powers: list[str]) -> list[str]:
    """Regeneración first, by its game name (it changes the rules), then the others."""
    others = [p for p in powers if p != REGENERACION]
    return (["Regeneración"] if REGENERACION in powers else []) + others


def parse_powers(text: str) -> list[str]:
    """ "Vuelo, visión nocturna" → ["Vuelo", "visión nocturna"] (blanks and repeats dropped)."""
    powers: list[str] = []
    for part in text.split(","):
        part = " ".join(part.split())
        if part and part.lower() not in (p.lower() for p in powers):
            powers.append(part)
    return powers


class SheetForm(forms.Form):
    """What a PJ's, a PNJ's and a Plantilla's forms share: scores, powers and notes."""

    FUE = _score_field("FUE")
    AGI = _score_field("AGI")
    DES = _score_field("DES")
    INT = _score_field("INT")
    VOL = _score_field("VOL")
    other_scores = forms.CharField(
        label=_("Other scores"),
        required=False,
        max_length=500,
        help_text=_("Abbreviation and number, separated by commas, e.g. “PER 3, CAR 2”."),
    )
    regeneracion = forms.BooleanField(
        label=_("Regeneración"),
        required=False,
        help_text=_("The PJ can heal itself (R25)."),
    )
    other_powers = forms.CharField(
        label=_("Other powers"),
        required=False,
        max_length=500,
        help_text=_("Separated by commas, e.g. “Vuelo, Visión nocturna”."),
    )
    notes = forms.CharField(
        label=_("Notes"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for abbr in MAIN_SCORES:
            self.fields[abbr].label = _score(abbr)
            # The summary at the top lists the errors without their labels: name the box.
            message = gettext("%(abbr)s: give a whole number from 0 to 10, or leave it blank.")
            message %= {"abbr": _score(abbr)}
            self.fields[abbr].error_messages.update(
                {"invalid": message, "min_value": message, "max_value": message}
            )

    @property
    def score_fields(self) -> list[forms.BoundField]:
        """The five attribute boxes, in sheet order."""
        return [self[abbr] for abbr in MAIN_SCORES]

    @staticmethod
    def sheet_initial(attributes: dict | None, powers: list | None, notes: str) -> dict:
        """The form's boxes filled from what is saved."""
        scores = attributes or {}
        powers = powers or []
        return {
            **{abbr: scores.get(abbr) for abbr in MAIN_SCORES},
            "other_scores": ", ".join(
                f"{abbr} {value}" for abbr, value in scores.items() if abbr not in MAIN_SCORES
            ),
            "regeneracion": REGENERACION in powers,
            "other_powers": ", ".join(p for p in powers if p != REGENERACION),
            "notes": notes,
        }

    def clean_other_scores(self) -> dict[str, int]:
        return parse_other_scores(self.cleaned_data["other_scores"])

    def clean_other_powers(self) -> list[str]:
        return parse_powers(self.cleaned_data["other_powers"])

    def attributes(self) -> dict[str, int]:
        """The scores to save: the five set ones, then the others."""
        data = self.cleaned_data
        main = {abbr: data[abbr] for abbr in MAIN_SCORES if data.get(abbr) is not None}
        return {**main, **data["other_scores"]}

    def powers(self) -> list[str]:
        """ "regeneracion" when ticked (or typed among the others), then the other powers."""
        typed = self.cleaned_data["other_powers"]
        others = [p for p in typed if p.lower() not in ("regeneracion", "regeneración")]
        regeneracion = self.cleaned_data["regeneracion"] or len(others) < len(typed)
        return ([REGENERACION] if regeneracion else []) + others


def name_taken(campaign: Campaign, name: str, character: Character | None = None) -> None:
    """Refuse `name` when another PJ or PNJ of the campaign has it (in any case)."""
    others = campaign.characters.filter(name__iexact=name)
    if character is not None:
        others = others.exclude(pk=character.pk)
    other = others.first()
    if other is None:
        return
    if other.is_pnj:
        message = _("A PNJ of this campaign is already called %(name)s.")
    elif other.is_archived:
        message = _("An archived PJ of this campaign is already called %(name)s.")
    else:
        message = _("This campaign already has a PJ called %(name)s.")
    raise ValidationError(message, params={"name": other.name}, code="name_taken")


class CharacterForm(SheetForm):
    """A PJ: name, player, scores, powers and notes, for character_create or _update."""

    field_order = ["name", "player"]

    name = forms.CharField(
        label=_("Name"),
        max_length=max_length(Character, "name"),
        error_messages={"required": _("Enter the PJ's name.")},
    )
    player: "forms.ModelChoiceField[User]" = forms.ModelChoiceField(
        label=_("Player"),
        queryset=None,
        required=False,
        empty_label=_("Nobody (the DJ plays it)"),
        help_text=_("Only players of this campaign are listed."),
    )

    def __init__(
        self, *args, campaign: Campaign, players, character: Character | None = None, **kwargs
    ) -> None:
        if character is not None and "initial" not in kwargs:
            kwargs["initial"] = self.initial_for(character)
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.character = character
        player = self.fields["player"]
        assert isinstance(player, forms.ModelChoiceField)  # the class's own field, copied
        player.queryset = players

    @classmethod
    def initial_for(cls, character: Character) -> dict:
        return {
            "name": character.name,
            "player": character.player_id,
            **cls.sheet_initial(character.attributes, character.powers, character.notes),
        }

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        name_taken(self.campaign, name, self.character)
        return name


PHASE_FIELDS = ("effect_leve", "effect_grave", "effect_persistente")


class EntryTexts(TypedDict, total=False):
    """CatalogueEntryForm.texts(): the effect texts its form shows, by field."""

    effect: str
    effect_leve: str
    effect_grave: str
    effect_persistente: str


class CatalogueEntryForm(forms.Form):
    """A catalogue entry's texts; its name and kind only when it is new."""

    name = forms.CharField(
        label=_("Name"),
        max_length=max_length(CatalogueEntry, "name"),
        error_messages={"required": _("Enter the entry's name.")},
        help_text=_("Lowercase, as the log writes it, e.g. “veneno de fugu”."),
    )
    kind = forms.ChoiceField(label=_("Kind"), choices=CatalogueEntry.Kind.choices)
    effect = forms.CharField(
        label=_("Effect"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("What it does, in the table's own words."),
    )
    effect_leve = forms.CharField(
        label=_("Effect at phase leve"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Diseases and poisons: the effect in each phase of the Afección."),
    )
    effect_grave = forms.CharField(
        label=_("Effect at phase grave"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    effect_persistente = forms.CharField(
        label=_("Effect at phase persistente"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, campaign: Campaign, entry: CatalogueEntry | None = None, **kwargs):
        if entry is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                f: getattr(entry, f)
                for f in (
                    "name",
                    "kind",
                    "effect",
                    "effect_leve",
                    "effect_grave",
                    "effect_persistente",
                )
            }
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.entry = entry
        if entry is not None:
            # Events name an entry: renaming it would cut the log off from its text.
            for field in ("name", "kind"):
                self.fields[field].disabled = True
            self.fields["name"].help_text = _(
                "The log refers to the entry by its name, so the name cannot change."
            )
            if entry.kind == CatalogueEntry.Kind.ESPECIAL:
                for field in PHASE_FIELDS:
                    del self.fields[field]

    def texts(self) -> EntryTexts:
        """The effect texts the form shows (an E.Esp has no phases)."""
        fields = ("effect", *PHASE_FIELDS)  # EntryTexts' keys
        return cast(EntryTexts, {f: self.cleaned_data[f] for f in fields if f in self.cleaned_data})

    def clean_name(self) -> str:
        name = catalogue_name_normalize(self.cleaned_data["name"])
        if self.entry is None and self.campaign.catalogue.filter(name=name).exists():
            raise ValidationError(
                _("The catalogue already has an entry called “%(name)s”."),
                params={"name": name},
                code="catalogue_name_taken",
            )
        return name


class SessionStartForm(forms.Form):
    title = forms.CharField(
        label=_("Session title"),
        required=False,
        max_length=max_length(GameSession, "title"),
    )


def add_service_error(form: forms.Form, error: ValidationError) -> None:
    """Show a service's refusal on the form: next to its field when the form has it."""
    if hasattr(error, "error_dict"):
        for field, errors in error.error_dict.items():
            known = field in form.fields and not form.fields[field].disabled
            form.add_error(field if known else None, errors)
    else:
        form.add_error(None, error)


BACKUP_MB = backup.MAX_BYTES // (1024 * 1024)


class ImportForm(forms.Form):
    file = forms.FileField(
        label=_("Backup file"),
        widget=forms.FileInput(attrs={"accept": ".json,application/json"}),
        error_messages={"required": _("Choose the backup file to import.")},
    )
    name = forms.CharField(
        label=_("Name"),
        required=False,
        max_length=max_length(Campaign, "name"),
        help_text=_("Leave it blank to keep the name in the file."),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["file"].help_text = gettext(
            "A .json file saved from a campaign's settings (Backup), up to %(mb)s MB."
        ) % {"mb": BACKUP_MB}

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > backup.MAX_BYTES:
            raise forms.ValidationError(
                gettext("The file is larger than %(mb)s MB, the most this page takes.")
                % {"mb": BACKUP_MB},
                code="too_large",
            )
        return upload


class AccountForm(BaseUserCreationForm):
    """A new account, a DJ's or a player's: a username no one has in any case ("Mei" and
    "mei" are one name) and a password typed twice (Django's checks)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = _(
            "Up to 150 characters: letters, digits and @ . + - _ only."
        )
        # One short line instead of Django's list of every rule (read on a phone).
        self.fields["password1"].help_text = _(
            "At least 8 characters; not only digits, not a common password, not like your username."
        )
        self.fields["password2"].help_text = _("The same password again.")

    def validate_password_for_user(self, user, **kwargs) -> None:
        """Django checks the password's rules on its confirmation; a weak password is said
        by the password field, where it was chosen (a mismatch stays on the confirmation)."""
        # django-stubs leaves SetPasswordMixin out of BaseUserCreationForm's bases.
        super().validate_password_for_user(user, password_field_name="password1")  # type: ignore[misc]

    def clean_username(self) -> str:
        # Called only once the field itself validated its value: cleaned_data holds it.
        username: str = self.cleaned_data["username"]
        users = get_user_model().objects
        if username and users.filter(username__iexact=username).exists():
            raise ValidationError(
                _("That username is taken (in capitals or not): choose another."),
                code="unique",
            )
        return username


def _username_length_checked(form: forms.Form) -> None:
    """Django's login forms set the username's max_length after making the field, so only
    the widget gets it, never a check: a longer name went on to authenticate(), where
    SQLite finds the any-case lookup's LIKE pattern too long and django-axes' record of the
    failure overflows PostgreSQL's varchar(255) (a 500 either way)."""
    field = form.fields["username"]
    assert isinstance(field, forms.CharField)  # Django's UsernameField
    field.validators.append(MaxLengthValidator(field.max_length))


class LoginForm(AuthenticationForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        _username_length_checked(self)


class AdminLoginForm(AdminAuthenticationForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        _username_length_checked(self)

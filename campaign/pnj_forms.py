"""Forms of the DJ's PNJ page: Plantillas, PNJ made by name or from one, a PNJ's own form.

They parse and check input only; the writes are campaign.services.pnj's. A PNJ's forms have
no player field: the DJ plays every PNJ.
"""

from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .forms import SheetForm, WholeNumberField, name_taken
from .models import Campaign, Character, Template
from .services.pnj import COPIES_MAX, COPY_NAME_MAX, NAME_MAX

REGENERACION_HELP = _("It can heal itself (R25).")


def _labels(choices: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """A model's choices as a form offers them, each label capitalised ("Enemigo")."""
    return [(value, capfirst(label)) for value, label in choices]


def _side_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        label=_("Side"),
        choices=_labels(Character.Side.choices),
        initial=Character.Side.ENEMIGO,
        widget=forms.RadioSelect,
        error_messages={"required": _("Choose enemy or ally.")},
    )


def _count_field() -> forms.IntegerField:
    return WholeNumberField(
        label=_("How many"),
        min_value=1,
        max_value=COPIES_MAX,
        initial=1,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


def _count_messages(form: forms.Form) -> None:
    """Every refusal of the count says its range (read in the summary, away from the box)."""
    message = gettext("From 1 to %(n)s at once.") % {"n": COPIES_MAX}
    form.fields["count"].error_messages.update(
        {key: message for key in ("required", "invalid", "min_value", "max_value")}
    )


class NewPnjForm(forms.Form):
    """PNJ made by name, one or several at once (Bandido ×3: Bandido 1–3), no Plantilla."""

    name = forms.CharField(
        label=_("Name"),
        max_length=NAME_MAX,
        error_messages={"required": _("Give the PNJ a name.")},
        help_text=_("Several at once are numbered: Bandido 1, Bandido 2…"),
    )
    count = _count_field()
    side = _side_field()

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        _count_messages(self)


class CopiesForm(forms.Form):
    """How many copies of one Plantilla to make."""

    count = _count_field()

    def __init__(self, *args, template: Template, **kwargs) -> None:
        kwargs.setdefault("auto_id", f"copies_{template.pk}_%s")  # one form per Plantilla
        super().__init__(*args, **kwargs)
        _count_messages(self)
        # The page shows "How many" by the box; the error summary names the Plantilla.
        self.fields["count"].label = gettext("Copies of %(name)s") % {"name": template.name}


class TemplateForm(SheetForm):
    """A Plantilla: name, side, scores, powers and notes, for services.template_save."""

    field_order = ["name", "side"]

    name = forms.CharField(
        label=_("Name"),
        max_length=COPY_NAME_MAX,
        error_messages={"required": _("Give the template a name.")},
        help_text=_("Its copies take it, numbered: Bandido 1, Bandido 2…"),
    )
    side = _side_field()

    def __init__(self, *args, template: Template | None = None, **kwargs) -> None:
        if template is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                "name": template.name,
                "side": template.side,
                **self.sheet_initial(template.attributes, template.powers, template.notes),
            }
        super().__init__(*args, **kwargs)
        self.fields["regeneracion"].help_text = REGENERACION_HELP


class PnjForm(SheetForm):
    """A PNJ's card and settings, for services.pnj_update."""

    field_order = ["name", "side", "in_party"]

    name = forms.CharField(
        label=_("Name"),
        max_length=NAME_MAX,
        error_messages={"required": _("Give the PNJ a name.")},
    )
    side = _side_field()
    in_party = forms.BooleanField(
        label=_("Travels with the party"),
        required=False,
        help_text=_("Allies only: the party's time and Descanso reach it."),
    )
    revealed = forms.BooleanField(
        label=_("Revealed to the players"),
        required=False,
        help_text=_("Unrevealed, players read only “an enemy” or “an ally”."),
    )
    lurking = forms.BooleanField(
        label=_("Hidden until its first turn"),
        required=False,
        help_text=_("Unrevealed, players do not even see it in the order until it acts."),
    )
    shows = forms.ChoiceField(
        label=_("Once revealed, players see"),
        choices=_labels(Character.Shows.choices),
        widget=forms.RadioSelect,
    )

    def __init__(self, *args, campaign: Campaign, character: Character, **kwargs) -> None:
        if "initial" not in kwargs:
            kwargs["initial"] = {
                "name": character.name,
                **{f: getattr(character, f) for f in ("side", "in_party", "revealed")},
                **{f: getattr(character, f) for f in ("lurking", "shows")},
                **self.sheet_initial(character.attributes, character.powers, character.notes),
            }
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.character = character
        self.fields["regeneracion"].help_text = REGENERACION_HELP

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        name_taken(self.campaign, name, self.character)
        return name

    def settings(self) -> dict:
        """The PNJ's settings to save (services.pnj.SETTINGS)."""
        names = ("side", "in_party", "revealed", "lurking", "shows")
        return {name: self.cleaned_data[name] for name in names}

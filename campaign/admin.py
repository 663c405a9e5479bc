"""Admin for every model. The log and its projections are read-only here: they change
only through campaign.services, and characters are saved through it too."""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

import rules
from rules import RuleError

from . import services
from .forms import AdminLoginForm
from .models import (
    Campaign,
    CatalogueEntry,
    Character,
    CharacterSnapshot,
    EventSnapshot,
    GameSession,
    Membership,
    StateEvent,
)

# The admin's login checks the username's length too (forms.AdminLoginForm).
admin.site.login_form = AdminLoginForm


class ReadOnlyAdmin(admin.ModelAdmin):
    """Viewable, never added, changed or deleted by hand."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "especificos", "esfuerzo_prolongado", "last_seq"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["last_seq", "created_at"]
    inlines = [MembershipInline]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if not change:
            services.catalogue_seed(campaign=obj)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "campaign", "role"]
    list_filter = ["role", "campaign"]
    autocomplete_fields = ["user"]


class CharacterForm(forms.ModelForm):
    """Checks scores and powers as the services will, so saving cannot fail later."""

    class Meta:
        model = Character
        fields = ["campaign", "name", "player", "attributes", "powers", "notes"]

    def clean_attributes(self):
        scores = services.scores_validate(self.cleaned_data["attributes"])
        if self.instance.pk:
            state = self.instance.snapshot.state
            campaign = self.instance.campaign
        else:
            state = rules.initial_state()
            campaign = self.cleaned_data.get("campaign")
        options = campaign.rule_options() if campaign else {}
        try:
            rules.apply(state, {"kind": "attributes", "scores": scores}, options)
        except RuleError as err:
            raise ValidationError(err.message()) from err
        return scores

    def clean_powers(self):
        return services.powers_validate(self.cleaned_data["powers"])


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    form = CharacterForm
    list_display = ["name", "campaign", "player"]
    list_filter = ["campaign"]
    search_fields = ["name"]
    readonly_fields = ["joined_seq"]

    def get_readonly_fields(self, request, obj=None):
        # The campaign of an existing PJ is part of its log's identity.
        return [*self.readonly_fields, "campaign"] if obj else self.readonly_fields

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        fields = {
            "name": data["name"],
            "player": data["player"],
            "attributes": data["attributes"],
            "powers": data["powers"],
            "notes": data["notes"],
            "actor": request.user,
        }
        if change:
            saved = services.character_update(character=obj, **fields)
        else:
            saved = services.character_create(campaign=data["campaign"], **fields)
        obj.pk = saved.pk


class EventSnapshotInline(admin.TabularInline):
    model = EventSnapshot
    extra = 0
    can_delete = False
    readonly_fields = ("character", "state")
    fields = readonly_fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(StateEvent)
class StateEventAdmin(ReadOnlyAdmin):
    list_display = ["seq", "campaign", "character", "kind", "created_at", "is_void", "secret"]
    list_filter = ["campaign", "secret", ("void_at", admin.EmptyFieldListFilter)]
    search_fields = ["character__name", "idempotency_key"]
    inlines = [EventSnapshotInline]

    @admin.display(boolean=True, description=_("void"))
    def is_void(self, obj: StateEvent) -> bool:
        return obj.is_void


@admin.register(CharacterSnapshot)
class CharacterSnapshotAdmin(ReadOnlyAdmin):
    list_display = ["character", "seq", "updated_at"]
    list_filter = ["character__campaign"]


@admin.register(EventSnapshot)
class EventSnapshotAdmin(ReadOnlyAdmin):
    list_display = ["character", "event"]
    list_filter = ["character__campaign"]


@admin.register(GameSession)
class GameSessionAdmin(admin.ModelAdmin):
    list_display = ["campaign", "number", "title", "started_at", "ended_at"]
    list_filter = ["campaign"]
    readonly_fields = ["number", "sheet_summary"]

    def has_add_permission(self, request, obj=None):
        # Sessions are opened from the campaign (services.session_start).
        return False


@admin.register(CatalogueEntry)
class CatalogueEntryAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "campaign", "effect"]
    list_filter = ["campaign", "kind"]
    search_fields = ["name"]

"""Template helpers of the DJ's board."""

import uuid

from django import template
from django.middleware.csrf import get_token
from django.utils.safestring import mark_safe

from campaign import cards

register = template.Library()


@register.simple_tag(takes_context=True)
def form_fields(context) -> str:
    """The CSRF token and a fresh idempotency key of a board form.

    Left out of "common" renderings (a live refresh, cached for every DJ page alike): there
    htmx sends the CSRF header and board.js gives each form its own key.
    """
    if context.get("common"):
        return ""
    # The request's token as the csrf context processor gives it: masked once per request
    # (get_token masks it anew on every call, and a heavy board has a hundred forms).
    token = context.get("csrf_token") or get_token(context["request"])
    # Both values are letters and digits only (Django's token alphabet, a uuid's hex).
    return mark_safe(  # noqa: S308
        f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">{form_key()}'
    )


@register.simple_tag
def form_key() -> str:
    """A hidden idempotency key, fresh for each rendered form: a double tap sends the same
    key twice and the second is recorded as nothing."""
    return mark_safe(f'<input type="hidden" name="key" value="{uuid.uuid4().hex}">')  # noqa: S308


@register.filter
def signed(value: int) -> str:
    return cards.signed(value)


@register.filter
def two(value: int) -> str:
    return f"{int(value):02d}"


@register.filter
def special(name: str) -> str:
    """An E.Esp, disease or poison name as the table reads it."""
    from campaign.cards import lang
    from rules.texts import special_label

    return special_label(str(name), lang())


@register.filter
def event_words(event: dict) -> str:
    """What an event did, in a few words."""
    from campaign.history.words import event_label

    return event_label(event)


@register.filter
def sign(value: int) -> str:
    """ "neg", "pos" or "zero": a class name for colouring a modifier."""
    if not isinstance(value, int) or value == 0:
        return "zero"
    return "pos" if value > 0 else "neg"

"""Template helpers of the DJ's board."""

import uuid

from django import template
from django.middleware.csrf import get_token
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from campaign.present import lang
from campaign.present.events import event_label
from campaign.present.figures import signed as signed_text
from rules.texts import special_label

register = template.Library()


@register.simple_tag(takes_context=True)
def form_fields(context) -> str:
    """The CSRF token and a fresh idempotency key of a board form.

    Left out of "common" renderings (a live refresh, cached for every DJ page alike): there
    htmx sends the CSRF header and static/js/live/taps.js gives each form its own key.
    """
    if context.get("common"):
        return ""
    # The request's token as the csrf context processor gives it: masked once per request
    # (get_token masks it anew on every call, and a heavy board has a hundred forms).
    token = context.get("csrf_token") or get_token(context["request"])
    # Both values are letters and digits only (Django's token alphabet, a uuid's hex).
    return mark_safe(
        f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">{form_key()}'
    )


@register.simple_tag
def form_key() -> str:
    """A hidden idempotency key, fresh for each rendered form: a double tap sends the same
    key twice and the second is recorded as nothing."""
    return mark_safe(f'<input type="hidden" name="key" value="{uuid.uuid4().hex}">')


@register.simple_tag(takes_context=True)
def box_control(context, row, box) -> str:
    """One E.Alt box of a board card: a submit button of the card's form, or, when the grade
    needs a choice first (box.ask), a button that opens the chooser (hx-get). Without
    JavaScript that button posts the card's form to the chooser's address instead
    (formaction), which sends the browser on to the chooser's page (views.board.ask): a
    GET would carry the form's CSRF token in the address.

    Written here rather than as template markup: a heavy board has 120 boxes, and in the
    template each of their dozen values was a node resolved and escaped one by one."""
    pk = context["pk"]
    classes = "box" + (" marked" if box.marked else "") + (" active" if box.active else "")
    common = format_html(
        'data-shortcut-type="{}" data-shortcut-grade="{}" aria-label="{} {}" title="{}: {}"',
        row.type,
        box.grade,
        row.label,
        box.label.lower(),
        box.label,
        box.state_word,
    )
    if box.ask:
        url = reverse("ask", args=[context["campaign"].slug, pk, box.ask])
        return format_html(
            '<button type="submit" class="{}" formaction="{}" name="grade" value="{}" '
            'hx-get="{}" hx-target="#pj-{}-ask" hx-swap="innerHTML" {}>{}</button>',
            classes,
            url,
            box.grade,
            url,
            pk,
            common,
            box.initial,
        )
    return format_html(
        '<button type="submit" class="{}" name="type_grade" value="{}:{}" {}>{}</button>',
        classes,
        row.type,
        box.grade,
        common,
        box.initial,
    )


@register.simple_tag(takes_context=True)
def chip_item(context, chip, shows_effect: bool = False) -> str:
    """An E.Esp or Afección chip of a board card, with its × (remove) and ocultar/mostrar
    (secret) forms; `shows_effect` writes the chip's text out (a disease's or poison's
    phase, which a tablet cannot hover). Written here for the reason box_control is."""
    pk = context["pk"]
    fields = form_fields(context)
    target = f"#pj-{pk}"
    secret = format_html(' <span class="chip-secret">{}</span>', _("secret")) if chip.secret else ""
    effect = ""
    if shows_effect and chip.effect:
        effect = format_html('<span class="chip-effect">{}</span>', chip.effect)
    forms = ""
    if chip.removable:
        act_url, secret_url = context["act_url"], context["secret_url"]
        forms = format_html(
            '<form method="post" action="{}" hx-post="{}" hx-target="{}" hx-swap="outerHTML">'
            '{}<input type="hidden" name="action" value="special">'
            '<input type="hidden" name="on" value="0">'
            '<input type="hidden" name="name" value="{}">'
            '<button type="submit" class="chip-button" aria-label="{}" title="{}">×</button>'
            "</form>"
            '<form method="post" action="{}" hx-post="{}" hx-target="{}" hx-swap="outerHTML">'
            '{}<input type="hidden" name="name" value="{}">'
            '<input type="hidden" name="hide" value="{}">'
            '<button type="submit" class="chip-button chip-secret-button" aria-label="{}" '
            'title="{}">{}</button></form>',
            act_url,
            act_url,
            target,
            fields,
            chip.name,
            chip.remove_label,
            chip.remove_label,
            secret_url,
            secret_url,
            target,
            form_fields(context),
            chip.name,
            "0" if chip.secret else "1",
            chip.secret_label,
            chip.secret_label,
            chip.secret_word,
        )
    # The name and its buttons on one line (the name wraps, never the buttons away from it);
    # the effect under them. The buttons' own titles say what they do, not the chip's effect.
    return format_html(
        '<li class="chip{}" title="{}"><div class="chip-line"><span class="chip-text">'
        '<span class="chip-name">{}</span>{}</span>{}</div>{}</li>',
        " is-secret" if chip.secret else "",
        chip.effect,
        chip.label,
        secret,
        forms,
        effect,
    )


@register.filter
def signed(value: int) -> str:
    return signed_text(value)


@register.filter
def two(value: int) -> str:
    return f"{int(value):02d}"


@register.filter
def special(name: str) -> str:
    """An E.Esp, disease or poison name as the table reads it."""
    return special_label(str(name), lang())


@register.filter
def event_words(event: dict) -> str:
    """What an event did, in a few words."""
    return event_label(event)


@register.filter
def sign(value: int) -> str:
    """ "neg", "pos" or "zero": a class name for colouring a modifier."""
    if not isinstance(value, int) or value == 0:
        return "zero"
    return "pos" if value > 0 else "neg"

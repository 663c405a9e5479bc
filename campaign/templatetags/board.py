"""Template helpers of the DJ's board."""

import html
import uuid
from functools import lru_cache

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.middleware.csrf import get_token
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import gettext as _

from campaign.present import lang
from campaign.present.events import event_label
from campaign.present.figures import signed as signed_text
from rules.texts import special_label

register = template.Library()


def _esc(value) -> str:
    """conditional_escape without its lazy-text wrapper: a board escapes a few thousand
    values, and the wrapper cost more than the escaping."""
    return str(value) if isinstance(value, SafeData) else html.escape(str(value))


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


# A stand-in pk: card_url reverses an address once with it, then writes each card's pk in.
_PK = 987654321


@lru_cache(maxsize=512)
def _address(
    prefix: str, urlconf: str | None, name: str, slug: str, args: tuple, pk: bool
) -> tuple[str, str]:
    """The address of `name` for campaign `slug` and `args`; with `pk`, args[0] is _PK and
    the address comes cut where it stands (else whole, and ""). `prefix` and `urlconf` key
    it: the address is theirs (reverse reads both)."""
    url = reverse(name, urlconf=urlconf, args=[slug, *args])
    if not pk:
        return url, ""
    head, _sep, tail = url.rpartition(f"/{_PK}/")
    return f"{head}/", f"/{tail}"


@receiver(setting_changed)
def _addresses_changed(*, setting: str, **kwargs) -> None:
    if setting == "ROOT_URLCONF":
        _address.cache_clear()


@register.simple_tag(takes_context=True)
def card_url(context, name: str, *args) -> str:
    """{% url name campaign.slug *args %} for a board card, where args[0], if any, is the
    card's pk: a board of 20 cards reversed a hundred addresses that differ by their pk
    only, so each is reversed once per campaign and the pk written in."""
    slug, prefix, urlconf = context["campaign"].slug, get_script_prefix(), get_urlconf()
    if args and isinstance(args[0], int):
        head, tail = _address(prefix, urlconf, name, slug, (_PK, *args[1:]), True)
        return f"{head}{args[0]}{tail}"
    return _address(prefix, urlconf, name, slug, args, False)[0]


# The stand-in for a chooser's kind in a card's one reversed chooser address (box_row).
_KIND = "__kind__"


@lru_cache(maxsize=512)
def _box_parts(
    type_: str, label: str, grade: str, grade_label: str, state_word: str, classes: str
) -> tuple[str, str]:
    """A box's escaped attributes (all but its address) and its letter: the same for every
    card of one language, so escaped once."""
    common = format_html(
        'data-shortcut-type="{}" data-shortcut-grade="{}" aria-label="{} {}" title="{}: {}"',
        type_,
        grade,
        label,
        grade_label.lower(),
        grade_label,
        state_word,
    )
    return f'class="{escape(classes)}"', f"{common}>{escape(grade_label[:1])}</button>"


def _box(row, box, pk: int, ask_url: str) -> str:
    """One E.Alt box of a board card: a submit button of the card's form, or, when the grade
    needs a choice first (box.ask), a button that opens the chooser (hx-get). Without
    JavaScript that button posts the card's form to the chooser's address instead
    (formaction), which sends the browser on to the chooser's page (views.board.ask): a
    GET would carry the form's CSRF token in the address. `ask_url`: the card's chooser
    address with _KIND for the chooser."""
    classes = "box" + (" marked" if box.marked else "") + (" active" if box.active else "")
    cls, rest = _box_parts(row.type, row.label, box.grade, box.label, box.state_word, classes)
    if box.ask:
        url = escape(ask_url.replace(_KIND, box.ask))
        return (
            f'<button type="submit" {cls} formaction="{url}" name="grade" value="{box.grade}" '
            f'hx-get="{url}" hx-target="#pj-{pk}-ask" hx-swap="innerHTML" {rest}'
        )
    return f'<button type="submit" {cls} name="type_grade" value="{row.type}:{box.grade}" {rest}'


def _boxes(context, row) -> str:
    pk = int(context["pk"])
    ask_url = ""
    if any(box.ask for box in row.boxes):
        # Kept for the card's other rows: the render context is the card template's own.
        key = ("ask_url", pk)
        ask_url = context.render_context.get(key) or reverse(
            "ask", args=[context["campaign"].slug, pk, _KIND]
        )
        context.render_context[key] = ask_url
    # Grades and types are the rules' own names (letters only): nothing there to escape.
    return "".join(_box(row, box, pk, ask_url) for box in row.boxes)


@register.simple_tag(takes_context=True)
def box_row(context, row) -> str:
    """The boxes of one E.Alt row of a board card (_box), in grade order.

    Written here rather than as template markup: a board of 8 PJ and 12 PNJ has 300 boxes,
    and in the template each of their dozen values was a node resolved and escaped one by
    one. The parts of a box that every card shares are escaped once (_box_parts), and the
    card's chooser address is reversed once for all its boxes."""
    return mark_safe(_boxes(context, row))


@register.simple_tag(takes_context=True)
def compact_rows(context, rows) -> str:
    """A PNJ's compact card's E.Alt rows, each its name and its boxes on one line; written
    here for the reason box_row is (twelve PNJ are sixty rows)."""
    return mark_safe(
        "".join(
            f'<li class="condition{f" is-active grade-{row.active}" if row.active else ""}">'
            f'<span class="type">{_esc(row.label)}</span> '
            f'<span class="boxes">{_boxes(context, row)}</span></li>'
            for row in rows
        )
    )


@register.simple_tag(takes_context=True)
def chip_item(context, chip, shows_effect: bool = False) -> str:
    """An E.Esp or Afección chip of a board card, with its × (remove) and ocultar/mostrar
    (secret) forms; `shows_effect` writes the chip's text out (a disease's or poison's
    phase, which a tablet cannot hover). Written here for the reason box_row is, each value
    escaped once."""
    name, effect = _esc(chip.name), _esc(chip.effect)
    secret = f' <span class="chip-secret">{_esc(_("secret"))}</span>' if chip.secret else ""
    shown = f'<span class="chip-effect">{effect}</span>' if shows_effect and chip.effect else ""
    forms = ""
    if chip.removable:
        act_url, secret_url = _esc(context["act_url"]), _esc(context["secret_url"])
        target = f"#pj-{int(context['pk'])}"
        remove, hide = _esc(chip.remove_label), _esc(chip.secret_label)
        forms = (
            f'<form method="post" action="{act_url}" hx-post="{act_url}" hx-target="{target}" '
            f'hx-swap="outerHTML">{form_fields(context)}'
            '<input type="hidden" name="action" value="special">'
            '<input type="hidden" name="on" value="0">'
            f'<input type="hidden" name="name" value="{name}">'
            f'<button type="submit" class="chip-button" aria-label="{remove}" title="{remove}">'
            "×</button></form>"
            f'<form method="post" action="{secret_url}" hx-post="{secret_url}" '
            f'hx-target="{target}" hx-swap="outerHTML">{form_fields(context)}'
            f'<input type="hidden" name="name" value="{name}">'
            f'<input type="hidden" name="hide" value="{"0" if chip.secret else "1"}">'
            '<button type="submit" class="chip-button chip-secret-button" '
            f'aria-label="{hide}" title="{hide}">{_esc(chip.secret_word)}</button></form>'
        )
    # The name and its buttons on one line (the name wraps, never the buttons away from it);
    # the effect under them. The buttons' own titles say what they do, not the chip's effect.
    return mark_safe(
        f'<li class="chip{" is-secret" if chip.secret else ""}" title="{effect}">'
        f'<div class="chip-line"><span class="chip-text"><span class="chip-name">'
        f"{_esc(chip.label)}</span>{secret}</span>{forms}</div>{shown}</li>"
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


@register.simple_tag
def initiative_attrs() -> str:
    """The attributes of every field that takes an initiative (the board's PNJ form, the
    order page's lines and its add form): one rule, turn_order.initiative_read."""
    return mark_safe('inputmode="numeric" maxlength="7" autocomplete="off"')

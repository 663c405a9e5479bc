"""Template helpers of the DJ's board."""

import secrets
from functools import lru_cache

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.middleware.csrf import get_token
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from campaign.present import lang
from campaign.present.figures import score_words
from campaign.present.figures import signed as signed_text
from campaign.templatetags.card_parts import _esc, ealt_text, sign_class
from campaign.templatetags.rules_reference import rule_url
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
    return mark_safe(_csrf(context) + _key())


def _csrf(context) -> str:
    # The request's token as the csrf context processor gives it: masked once per request
    # (get_token masks it anew on every call, and a heavy board has a hundred forms).
    token = context.get("csrf_token") or get_token(context["request"])
    # Letters and digits only (Django's token alphabet), as the key's hex digits.
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">'


def _key() -> str:
    # 128 random bits in hex, as a uuid4's hex without its version digits (and a third of
    # its cost: a heavy board has two hundred forms).
    return f'<input type="hidden" name="key" value="{secrets.token_hex(16)}">'


@register.simple_tag
def form_key() -> str:
    """A hidden idempotency key, fresh for each rendered form: a double tap sends the same
    key twice and the second is recorded as nothing."""
    return mark_safe(_key())


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
    lang: str, type_: str, label: str, grade: str, grade_label: str, marked: bool, active: bool
) -> tuple[str, str]:
    """A box's escaped attributes (all but its address) and its letter: the same for every
    card of one language `lang` (the one active), so written once."""
    state_word = _("marked") if marked else _("not marked")
    classes = "box" + (" marked" if marked else "") + (" active" if active else "")
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


def _box(row, box, pk: int, ask_url: str, lang: str) -> str:
    """One E.Alt box of a board card: a submit button of the card's form, or, when the grade
    needs a choice first (box.ask), a button that opens the chooser (hx-get). Without
    JavaScript that button posts the card's form to the chooser's address instead
    (formaction), which sends the browser on to the chooser's page (views.board.ask): a
    GET would carry the form's CSRF token in the address. `ask_url`: the card's chooser
    address with _KIND for the chooser."""
    cls, rest = _box_parts(lang, row.type, row.label, box.grade, box.label, box.marked, box.active)
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
    lang = get_language()
    return "".join(_box(row, box, pk, ask_url, lang) for box in row.boxes)


@register.simple_tag(takes_context=True)
def box_row(context, row) -> str:
    """The boxes of one E.Alt row of a board card (_box), in grade order.

    Written here rather than as template markup: a board of 8 PJ and 12 PNJ has 300 boxes,
    and in the template each of their dozen values was a node resolved and escaped one by
    one. The parts of a box that every card shares are escaped once (_box_parts), and the
    card's chooser address is reversed once for all its boxes."""
    return mark_safe(_boxes(context, row))


@register.simple_tag(takes_context=True)
def condition_rows(context, card) -> str:
    """A board card's E.Alt rows: each its name, its boxes (box_row) and, when active, its
    text (card_parts.ealt_text); written here for the reason box_row is."""
    return mark_safe(
        "".join(
            f'<li class="condition{f" is-active grade-{row.active}" if row.active else ""}">'
            f'<div class="condition-head"><span class="type">{_esc(row.label)}</span> '
            f'<span class="boxes">{_boxes(context, row)}</span></div>'
            f"{ealt_text(row, card) if row.active else ''}</li>"
            for row in card.rows
        )
    )


@register.simple_tag(takes_context=True)
def compact_rows(context, rows) -> str:
    """A PNJ's compact card's E.Alt rows, each its name and its boxes on one line, in
    columns (app.css); at a phone's width the name is cut to its first letters ("Her"),
    whole for a screen reader. Written here for the reason box_row is (twelve PNJ are sixty
    rows)."""
    return mark_safe(
        "".join(
            f'<li class="condition{f" is-active grade-{row.active}" if row.active else ""}">'
            f'<span class="type"><span class="type-long">{_esc(row.label)}</span>'
            f'<span class="type-short" aria-hidden="true">{_esc(row.label[:3])}</span></span> '
            f'<span class="boxes">{_boxes(context, row)}</span></li>'
            for row in rows
        )
    )


def _chip_forms(context) -> tuple[str, str, bool]:
    """The start of a card's chip forms, the same for each of its chips: the remove form's
    and the secret form's tags with the CSRF token, and whether each form gets a key."""
    act_url, secret_url = _esc(context["act_url"]), _esc(context["secret_url"])
    target = f"#pj-{int(context['pk'])}"
    common = bool(context.get("common"))
    token = "" if common else _csrf(context)
    return (
        f'<form method="post" action="{act_url}" hx-post="{act_url}" hx-target="{target}" '
        f'hx-swap="outerHTML">{token}',
        f'<form method="post" action="{secret_url}" hx-post="{secret_url}" '
        f'hx-target="{target}" hx-swap="outerHTML">{token}',
        not common,
    )


def _chip(chip, shows_effect: bool, forms: tuple[str, str, bool]) -> str:
    name, effect = _esc(chip.name), _esc(chip.effect)
    secret = f' <span class="chip-secret">{_esc(_("secret"))}</span>' if chip.secret else ""
    shown = f'<span class="chip-effect">{effect}</span>' if shows_effect and chip.effect else ""
    buttons = ""
    if chip.removable:
        remove_form, secret_form, keyed = forms
        remove, hide = _esc(chip.remove_label), _esc(chip.secret_label)
        buttons = (
            f"{remove_form}{_key() if keyed else ''}"
            '<input type="hidden" name="action" value="special">'
            '<input type="hidden" name="on" value="0">'
            f'<input type="hidden" name="name" value="{name}">'
            f'<button type="submit" class="chip-button" aria-label="{remove}" title="{remove}">'
            "×</button></form>"
            f"{secret_form}{_key() if keyed else ''}"
            f'<input type="hidden" name="name" value="{name}">'
            f'<input type="hidden" name="hide" value="{"0" if chip.secret else "1"}">'
            '<button type="submit" class="chip-button chip-secret-button" '
            f'aria-label="{hide}" title="{hide}">{_esc(chip.secret_word)}</button></form>'
        )
    # The name and its buttons on one line (the name wraps, never the buttons away from it);
    # the effect under them. The buttons' own titles say what they do, not the chip's effect.
    return (
        f'<li class="chip{" is-secret" if chip.secret else ""}" title="{effect}">'
        f'<div class="chip-line"><span class="chip-text"><span class="chip-name">'
        f"{_esc(chip.label)}</span>{secret}</span>{buttons}</div>{shown}</li>"
    )


def chip_item(context, chip, shows_effect: bool = False) -> str:
    """An E.Esp or Afección chip of a board card, with its × (remove) and ocultar/mostrar
    (secret) forms; `shows_effect` writes the chip's text out (a disease's or poison's
    phase, which a tablet cannot hover). Written here for the reason box_row is, each value
    escaped once."""
    return mark_safe(_chip(chip, shows_effect, _chip_forms(context)))


@register.simple_tag(takes_context=True)
def chip_rows(context, card) -> str:
    """A board card's Afección chips (their text written out) and E.Esp chips, a row each
    when it has any (chip_item); the forms' common parts written once for the card."""
    if not card.afflictions and not card.specials:
        return ""
    forms = _chip_forms(context)
    rows = []
    for label, chips, shows_effect in (
        (_("Afección:"), card.afflictions, True),
        (_("E.Esp:"), card.specials, False),
    ):
        if chips:
            items = "".join(_chip(chip, shows_effect, forms) for chip in chips)
            rows.append(
                f'<div class="chip-row"><span class="chip-label">{_esc(label)}</span>'
                f'<ul class="chips">{items}</ul></div>'
            )
    return mark_safe("".join(rows))


@register.simple_tag(takes_context=True)
def check_list(context, card) -> str:
    """A board card's pending checks, each with its one-tap roll, its outcome told by hand
    and (optional ones) its dismissal; "Roll them all" first when more than one waits and
    the first has a score. Written here for the reason box_row is."""
    if not card.pending:
        return ""
    act_url, target = _esc(context["act_url"]), f"#pj-{int(context['pk'])}"
    head = (
        f'<form method="post" action="{act_url}" hx-post="{act_url}" hx-target="{target}" '
        'hx-swap="outerHTML"'
    )
    fields = _csrf(context) if not context.get("common") else ""
    keyed = not context.get("common")
    shown = ""
    if card.pending_total > 1 and card.pending[0].score is not None:
        roll_all = _("Roll them all (%(n)s)") % {"n": card.pending_total}
        shown += (
            f'{head} class="checks-all">{fields}{_key() if keyed else ""}'
            '<button type="submit" name="action" value="roll_all" class="button-secondary">'
            f'{_esc(roll_all)}</button> <span class="hint">'
            f"{_esc(_('in order; it stops at a roll that changes the PJ'))}</span></form>"
        )
    words = {
        "roll": _esc(_("Roll")),
        "success": _esc(_("Success")),
        "failure": _esc(_("Failure")),
        "dismiss": _esc(_("Dismiss")),
        "optional": _esc(_("optional")),
    }
    for n, p in enumerate(card.pending):
        count = ""
        if p.count > 1:
            waiting = _esc(_("%(n)s waiting") % {"n": p.count})
            count = (
                f' <span class="badge"><span aria-hidden="true">×{p.count}</span>'
                f'<span class="visually-hidden">{waiting}</span></span>'
            )
        score = f"({_esc(p.attribute)} {_esc(p.score)})" if p.score is not None else ""
        optional = f" · {words['optional']}" if p.optional else ""
        dismiss = (
            '<button type="submit" name="action" value="dismiss" class="button-small">'
            f"{words['dismiss']}</button>"
            if p.optional
            else ""
        )
        shown += (
            f'<div class="check"><p class="check-label"><strong>{_esc(p.label)}</strong>{count} '
            f'<a class="rule" href="{_esc(rule_url(p.rule))}">{_esc(p.rule)}</a> '
            f'<span class="hint">{score}{optional}</span></p>'
            f'{head} class="check-actions">{fields}{_key() if keyed else ""}'
            f'<input type="hidden" name="check" value="{_esc(p.check)}">'
            '<button type="submit" name="action" value="roll" class="button-primary"'
            f"{' data-roll' if n == 0 else ''}>{words['roll']}</button> "
            '<button type="submit" name="action" value="success" class="button-small">'
            f"{words['success']}</button> "
            '<button type="submit" name="action" value="failure" class="button-small">'
            f"{words['failure']}</button> {dismiss}</form></div>"
        )
    label = _esc(_("Pending checks"))
    return mark_safe(f'<section class="checks" aria-label="{label}">{shown}</section>')


def _attribute(key: str) -> str:
    return _esc(score_words(key))


@register.simple_tag
def modifier_table(card) -> str:
    """A board card's modifiers to actions, a column per attribute (or the words that there
    are none); with an active Emoción, those to flee and to fight."""
    if card.has_modifiers:
        heads = "".join(f'<th scope="col">{_attribute(k)}</th>' for k, _v in card.modifiers)
        cells = "".join(
            f'<td class="mod mod-{sign(v)}">{signed_text(v)}</td>' for _k, v in card.modifiers
        )
        shown = (
            f'<table class="mods"><caption class="visually-hidden">{_esc(_("Modifiers"))}'
            f"</caption><thead><tr><td></td>{heads}</tr></thead><tbody><tr>"
            f'<th scope="row">{_esc(_("Actions"))}</th>{cells}</tr></tbody></table>'
        )
    else:
        shown = f'<p class="mods-none">{_esc(_("No modifiers to actions."))}</p>'
    if card.state["active"]["emocion"]:
        shown += f'<p class="mods-intent">{_intents(card)}</p>'
    return mark_safe(shown)


@register.simple_tag
def modifier_line(card) -> str:
    """A PNJ's compact card's modifiers to actions, those not 0 in one line."""
    if not card.has_modifiers:
        return _("No modifiers.")  # short: it shares its line with "Whole card"
    mods = "".join(
        f'<span class="mod mod-{sign(v)}">{_attribute(k)} {signed_text(v)}</span> '
        for k, v in card.modifiers
        if v
    )
    return mark_safe(f'<span class="visually-hidden">{_esc(_("Modifiers"))}: </span>{mods}')


@register.simple_tag
def intents(card) -> str:
    """An active Emoción's modifiers to flee and to fight, in one line."""
    return mark_safe(_intents(card))


def _intents(card) -> str:

    def listed(pairs) -> str:
        return ", ".join(f"{_attribute(k)} <strong>{signed_text(v)}</strong>" for k, v in pairs)

    return (
        f"{_esc(_('To flee:'))} {listed(card.flee)} · {_esc(_('to fight:'))} {listed(card.fight)}"
    )


@register.filter
def signed(value: int) -> str:
    return signed_text(value)


@register.filter
def two(value: int) -> str:
    return f"{int(value):02d}"


@register.filter
def score(key: str) -> str:
    """A score as this page's language abbreviates it (FUE reads STR in English); the
    calculator's OTRO, any other action, in words."""
    return _("OTHER") if key == "OTRO" else score_words(key)


@register.filter
def special(name: str) -> str:
    """An E.Esp, disease or poison name as the table reads it."""
    return special_label(str(name), lang())


@register.filter
def sign(value: int) -> str:
    """ "neg", "pos" or "zero": a class name for colouring a modifier."""
    return sign_class(value)


@register.simple_tag
def area_count_words() -> str:
    """The words of the area blow's count of PNJ marked, for static/js/pnj.js to write the
    number in ("{n}"): none, one, several."""
    return format_html(
        'data-none="{}" data-one="{}" data-other="{}"',
        _("none marked"),
        ngettext("%(n)s marked", "%(n)s marked", 1) % {"n": "{n}"},
        ngettext("%(n)s marked", "%(n)s marked", 2) % {"n": "{n}"},
    )


@register.simple_tag
def initiative_attrs() -> str:
    """The attributes of every field that takes an initiative (the board's PNJ form, the
    order page's lines and its add form): one rule, turn_order.initiative_read."""
    return mark_safe('inputmode="numeric" maxlength="7" autocomplete="off"')

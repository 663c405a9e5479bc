"""A condition card's parts written in Python, shared by the board, the sheet and the
history: an active E.Alt's text, the scores line, a card's E.Alt rows read only and its
modifiers table.

Each was template markup rendered once per card and E.Alt: a heavy board has forty E.Alt
texts and twenty scores lines, and in a template each of their values was a node resolved,
localized and escaped one by one, each rule's link an address reversed anew. Here each
value is escaped once and each link is reversed once per rule (rules_reference.rule_url).
"""

import html
from functools import lru_cache

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import get_script_prefix, get_urlconf
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from ..present.figures import score_name, score_words, signed
from .rules_reference import rule_url

register = template.Library()


def _esc(value) -> str:
    """conditional_escape without its lazy-text wrapper: a board escapes a few thousand
    values, and the wrapper cost more than the escaping."""
    return str(value) if isinstance(value, SafeData) else html.escape(str(value))


@lru_cache(maxsize=64)
def _links(prefix: str, urlconf: str | None, rules: tuple[str, ...]) -> str:
    """An E.Alt's rule links (present.card.TYPE_RULES: a few tuples), keyed as
    rules_reference._link is."""
    return "".join(f' <a class="rule" href="{_esc(rule_url(r))}">{_esc(r)}</a>' for r in rules)


@receiver(setting_changed)
def _links_changed(*, setting: str, **kwargs) -> None:
    if setting == "ROOT_URLCONF":
        _links.cache_clear()


def _text(classes: str, title: str, links: str, effect: str, ends: str, cause: str = "") -> str:
    return (
        f'<div class="{classes}">'
        f'<p class="ealt-title"><strong>{_esc(title)}</strong>{links}</p>'
        f'<p class="ealt-effect">{_esc(effect)}</p>'
        f'<p class="ealt-ends"><span class="label">{_esc(_("Ends:"))}</span> {_esc(ends)}</p>'
        f"{cause}</div>"
    )


@register.simple_tag
def ealt_text(row, card) -> str:
    """An active E.Alt's text on a card (`row`, a present.card.TypeRow): its title and
    rules, its effect, how it ends, the cause of an Emoción grave; then an Emoción
    persistente's own text when it is marked under another active grade (row.also)."""
    links = _links(get_script_prefix(), get_urlconf(), tuple(row.rules))
    cause = ""
    if row.type == "emocion" and card.emotion_cause:
        cause = f'<p class="ealt-cause">{_esc(_("Cause:"))} {_esc(card.emotion_cause)}</p>'
    html = _text("ealt", row.title, links, row.effect, row.ends, cause)
    if row.also:
        also = row.also
        html += _text("ealt ealt-also", also["title"], links, also["effect"], also["ends"])
    return mark_safe(html)


@register.simple_tag
def scores_line(card) -> str:
    """The PJ's attribute scores in the game's order (card.scores), "–" for one not given.
    What they are is said in words a screen reader reads (a paragraph cannot be named with
    aria-label)."""
    missing = (
        f'<span aria-hidden="true">–</span><span class="visually-hidden">{_esc(_("not given"))}'
        "</span>"
    )
    scores = "".join(
        f'<span class="score"><abbr title="{_esc(score_name(name))}">{_esc(score_words(name))}'
        f"</abbr> <strong>{missing if value is None else _esc(value)}</strong></span>"
        for name, value in card.scores
    )
    return mark_safe(
        f'<p class="scores"><span class="visually-hidden">{_esc(_("Attribute scores:"))} '
        f"</span>{scores}</p>"
    )


@lru_cache(maxsize=512)
def _readonly_box(
    lang: str, type_label: str, grade: str, label: str, marked: bool, active: bool
) -> str:
    """A box read only: the same for every card of one language `lang` (the active one)."""
    state = _("marked") if marked else _("not marked")
    classes = "box box-readonly" + (" marked" if marked else "") + (" active" if active else "")
    return (
        f'<span class="{classes}" data-grade="{_esc(grade)}" role="img" '
        f'aria-label="{_esc(type_label)} {_esc(label.lower())}: {_esc(state)}" '
        f'title="{_esc(label)}: {_esc(state)}">{_esc(label[:1])}</span>'
    )


@register.simple_tag
def readonly_rows(card) -> str:
    """A card's E.Alt rows read only (the sheet, the party, an event's before and after):
    each its name, its boxes and, when active, its text (ealt_text)."""
    lang = get_language()
    rows = []
    for row in card.rows:
        boxes = "".join(
            _readonly_box(lang, row.label, b.grade, b.label, b.marked, b.active) for b in row.boxes
        )
        rows.append(
            f'<li class="condition{f" is-active grade-{row.active}" if row.active else ""}">'
            f'<div class="condition-head"><span class="type">{_esc(row.label)}</span> '
            f'<span class="boxes">{boxes}</span></div>'
            f"{ealt_text(row, card) if row.active else ''}</li>"
        )
    return mark_safe("".join(rows))


def _mod_cell(value: int | None) -> str:
    if value is None:
        return (
            f'<td><span aria-hidden="true">—</span><span class="visually-hidden">'
            f"{_esc(_('not applicable'))}</span></td>"
        )
    return f'<td class="mod mod-{sign_class(value)}">{signed(value)}</td>'


def sign_class(value: object) -> str:
    """ "neg", "pos" or "zero": a class name for colouring a modifier."""
    if not isinstance(value, int) or value == 0:
        return "zero"
    return "pos" if value > 0 else "neg"


@register.simple_tag
def modifier_rows(card) -> str:
    """A card's modifiers table's rows: each attribute's to actions, and to flee or fight
    ("—", not applicable, where none applies)."""
    rows = []
    for key, value, flee, fight in card.modifier_rows:
        name = _esc(score_words(key))
        cells = f"{_mod_cell(value)}{_mod_cell(flee)}{_mod_cell(fight)}"
        rows.append(f'<tr><th scope="row">{name}</th>{cells}</tr>')
    return mark_safe("".join(rows))

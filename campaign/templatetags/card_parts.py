"""A condition card's parts written in Python, shared by the board, the sheet and the
history: an active E.Alt's text and the scores line.

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
from django.utils.translation import gettext as _

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
        f'<span class="score"><abbr title="{_esc(name)}">{_esc(name)}</abbr> '
        f"<strong>{missing if value is None else _esc(value)}</strong></span>"
        for name, value in card.scores
    )
    return mark_safe(
        f'<p class="scores"><span class="visually-hidden">{_esc(_("Attribute scores:"))} '
        f"</span>{scores}</p>"
    )

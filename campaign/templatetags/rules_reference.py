"""`{{ effect.rule|rule_url }}`: the link to a rule of the reference page, or ""."""

from functools import lru_cache

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import get_script_prefix, get_urlconf

from campaign.reference import rule_url as _rule_url

register = template.Library()


@lru_cache(maxsize=256)
def _link(prefix: str, urlconf: str | None, rule: str) -> str:
    """A rule's link, reversed once: a heavy board links a hundred rules. `prefix` and
    `urlconf` key it (reverse reads both)."""
    try:
        return _rule_url(rule)
    except ValueError:
        return ""


@receiver(setting_changed)
def _links_changed(*, setting: str, **kwargs) -> None:
    if setting == "ROOT_URLCONF":
        _link.cache_clear()


@register.filter
def rule_url(rule: object) -> str:
    """Link "R11" to "/reglas/#R11"; anything but R1 to R27 ("base", "DJ") gives ""."""
    return _link(get_script_prefix(), get_urlconf(), str(rule))

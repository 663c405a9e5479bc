"""Times in markup: the value of a `<time datetime="…">`."""

from datetime import datetime

from django import template
from django.utils import timezone

register = template.Library()


@register.filter
def datetime_attr(value: datetime | None) -> str:
    """`value` as a global date and time string, to the second, in the current time zone:
    "2026-05-01T21:30:05+02:00". HTML allows at most three decimals of a second, and
    Django's `date:'c'` writes six."""
    if not isinstance(value, datetime):
        return ""
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return value.isoformat(timespec="seconds")

"""`{{ effect.rule|rule_url }}`: the link to a rule of the reference page, or ""."""

from django import template

from campaign.reference import rule_url as _rule_url

register = template.Library()


@register.filter
def rule_url(rule: object) -> str:
    """Link "R11" to "/reglas/#R11"; anything but R1 to R27 ("base", "DJ") gives ""."""
    try:
        return _rule_url(str(rule))
    except ValueError:
        return ""

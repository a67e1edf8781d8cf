"""Template tags of the admin console: the dashboard's sections for the admin index."""

from django import template

from config import dashboard

register = template.Library()


@register.simple_tag
def dashboard_sections():
    return dashboard.sections()


@register.filter
def is_link(cell) -> bool:
    """Table cells that link somewhere are (text, url) pairs."""
    return isinstance(cell, tuple)

"""The agent and call pages' own filters (the links to them are the shared room's
`{% load links %}`)."""

from django import template

register = template.Library()


@register.filter
def clock(seconds) -> str:
    """A duration as h:mm:ss (m:ss under an hour); "–" when unknown."""
    if seconds is None or seconds == "":
        return "–"
    s = int(seconds)
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"

"""A group alert's agents as its page lists them, live: every open group's list rendered
once per change, kept in the cache for a page's first look, and sent to the group pages'
sockets (consumers.py), each of which forwards its own."""

from django.core.cache import cache
from django.template.loader import render_to_string

from .models import AGENT_STATES, Alert

GROUP = "alert-members"
KEY = "alerts:members"
CLEARED = '<div id="alert-members"><p class="muted">This alert is cleared: no agent is past its limit.</p></div>'  # noqa: E501


def render_all() -> dict[str, str]:
    """{alert id: its list's html} of the open group alerts."""
    groups = Alert.objects.filter(cleared_at__isnull=True, rule__metric__in=list(AGENT_STATES))
    return {
        str(a.id): render_to_string("alerts/_members.html", {"alert": a})
        for a in groups.select_related("rule")
    }


def store(lists: dict[str, str]):
    cache.set(KEY, lists, timeout=None)

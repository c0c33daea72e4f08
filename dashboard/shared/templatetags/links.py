"""Links to the agent and call pages, for every page that names an agent or a call (never
a wallboard's: `{% load links %}` in a template a wallboard renders is a mistake).

Addresses come from the URL conf by name (`agent`, `call`), so any room may link without
knowing the pages' room. An id no page can have (a "/" in it), or a site without those
pages, gets no address, never an error, since the live feed renders these links into every
tile.
"""

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()


def _url(name: str, some_id) -> str:
    try:
        return reverse(name, args=[some_id]) if some_id else ""
    except NoReverseMatch:
        return ""


@register.filter
def named(some_id, names) -> str:
    """A name the service gave for the id, else a short form of the id."""
    return names.get(some_id) or f"{str(some_id)[:8]}…"


@register.filter
def agent_url(agent_id) -> str:
    return _url("agent", agent_id)


@register.filter
def call_url(call_id) -> str:
    return _url("call", call_id)


@register.filter
def agent_link(agent_id, names) -> str:
    """The agent's name (a short form of its id when the feed does not know it), linked to
    its page, in <bdi>; "AI" when no agent handled it."""
    if not agent_id:
        return mark_safe("<bdi>AI</bdi>")
    return format_html(
        '<a href="{}"><bdi>{}</bdi></a>', agent_url(agent_id), named(agent_id, names)
    )


@register.filter
def call_link(call_id) -> str:
    """A call's id, short, linked to its page (the whole id on hover)."""
    if not call_id:
        return "–"
    short = call_id if len(call_id) <= 12 else f"{call_id[:8]}…"
    return format_html(
        '<a class="mono" href="{}" title="{}">{}</a>', call_url(call_id), call_id, short
    )

from django import template
from django.utils.html import format_html

from dashboard.shared.templatetags.links import named

register = template.Library()


@register.filter
def label(code) -> str:
    """A service code as words: "long_hold" -> "Long hold"."""
    return str(code).replace("_", " ").capitalize()


@register.filter
def agent_name(agent_id, names) -> str:
    """The agent's name when the live feed knows it, else a short form of the id; in <bdi>,
    so a right-to-left name cannot reorder the text around it."""
    return format_html("<bdi>{}</bdi>", named(agent_id, names) if agent_id else "AI")


@register.filter
def team_of_call(call_id, live_calls) -> str:
    """The team of the agent on a live call ("" when none is known)."""
    return live_calls.get(call_id, ("", ""))[1]

from django import template

register = template.Library()


@register.filter
def label(code) -> str:
    """A service code as words: "long_hold" -> "Long hold"."""
    return str(code).replace("_", " ").capitalize()


@register.filter
def agent_name(agent_id, names) -> str:
    """The agent's name when the live feed knows it, else a short form of the id."""
    if not agent_id:
        return "AI"
    return names.get(agent_id) or f"{str(agent_id)[:8]}…"


@register.filter
def named(some_id, names) -> str:
    """A name the service gave for the id, else a short form of the id."""
    return names.get(some_id) or f"{str(some_id)[:8]}…"

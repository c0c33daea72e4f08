from django import template

register = template.Library()


@register.filter
def label(code) -> str:
    """A service code as words: "long_hold" -> "Long hold"."""
    return str(code).replace("_", " ").capitalize()

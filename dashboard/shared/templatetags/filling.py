"""What a figure of today shows instead of a number while today is read from the service's
history: `{{ pct|filling }}`, with the progress in whole percent (the live view's strip, the
normal's pages); `{{ pct|filling:"the past weeks" }}` while the weeks the normal is made
of are. One filter: the strip renders it on every push, where an include costs a
template's render each time."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from dashboard.shared.filling import filling_sentence

register = template.Library()


@register.filter
def filling(pct, what: str = "today") -> str:
    if type(pct) is int and what == "today":  # as the backfill gives it: nothing to escape
        return mark_safe(f'<span class="filling">{filling_sentence(pct)}</span>')
    return format_html('<span class="filling">{}</span>', filling_sentence(pct, what))

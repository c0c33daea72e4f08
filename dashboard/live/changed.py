"""The "What changed" panel of the live view (and of the wallboards that show it): what
the bridge last worked out against the normal (`what_changed`, one of the feed's figures,
plain rows made in dashboard/normal/panel.py), rendered by the feed once per change."""

from django.template.loader import render_to_string

from .render import ascii_html


def render_changed(what: dict | None) -> str:
    return ascii_html(render_to_string("live/_changed.html", {"what": what}))

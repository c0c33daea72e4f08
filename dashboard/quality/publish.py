"""Live pushes of the coaching and QA pages: each fragment rendered once, sent to a group."""

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from .metrics import open_alert_counts

COACHING = "coaching"
QA = "qa"


def send(group: str, html: str):
    async_to_sync(get_channel_layer().group_send)(group, {"type": "push.html", "html": html})


def publish_alert(alert, new=False):
    """A new alert goes on top of the list; a changed one replaces its row. The header's
    open counts follow in a push of their own (a row's <tr> and a <span> in one fragment
    would not parse as two elements)."""
    from .views import agent_names

    html = render_to_string(
        "quality/_alert.html", {"alert": alert, "new": new, "names": agent_names()}
    )
    send(COACHING, html)
    send(COACHING, render_to_string("quality/_open_counts.html", {"counts": open_alert_counts()}))


def publish_qa(context: dict):
    send(QA, render_to_string("quality/_qa_body.html", context))

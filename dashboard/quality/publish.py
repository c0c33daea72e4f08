"""Live pushes of the coaching and QA pages: each fragment rendered once, sent to a group."""

from django.template.loader import render_to_string

from dashboard.live.groups import push_html
from dashboard.live.names import agent_names
from dashboard.live.publish import live_calls

from .metrics import open_alert_counts
from .pages import qa_context

COACHING = "coaching"
QA = "qa"


def publish_alert(alert, new=False):
    """A new alert goes on top of the list; a changed one replaces its row. The header's
    open counts follow in a push of their own (a row's <tr> and a <span> in one fragment
    would not parse as two elements)."""
    html = render_to_string(
        "quality/_alert.html",
        {"alert": alert, "new": new, "names": agent_names(), "live_calls": live_calls()},
    )
    push_html(COACHING, html)
    counts = render_to_string("quality/_open_counts.html", {"counts": open_alert_counts()})
    push_html(COACHING, counts)


def publish_qa():
    """The QA page's body, after new scorecards or checks, or a refresh of the summaries."""
    push_html(QA, render_to_string("quality/_qa_body.html", qa_context()))

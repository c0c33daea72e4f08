"""Live pushes of the inbound pages: each body rendered once per change and sent as one
string to the group of the page that shows it (a body that did not change is not sent)."""

import hashlib

from django.template.loader import render_to_string

from dashboard.live.groups import push_html

from .pages import queue_context, queues_context, voicemail_context

QUEUES = "inbound-queues"
VOICEMAIL = "inbound-voicemail"
_sent: dict[str, str] = {}  # group -> digest of the last html pushed to it


def queue_group(queue_id: str) -> str:
    """A group name from an id the service chose (group names allow few characters)."""
    return "inbound-queue-" + hashlib.sha256(queue_id.encode()).hexdigest()[:24]


def push_changed(group: str, html: str, force=False):
    digest = hashlib.sha256(html.encode()).hexdigest()
    if force or _sent.get(group) != digest:
        _sent[group] = digest
        push_html(group, html)


def board_changed(board: dict):
    """After each pass of the board: the queues list, each queue's page, the voicemail."""
    push_changed(QUEUES, render_to_string("inbound/_queues_body.html", queues_context()))
    for row in board["queues"]:
        html = render_to_string("inbound/_queue_body.html", queue_context(row["id"]))
        push_changed(queue_group(row["id"]), html)
    voicemail_changed()


def voicemail_changed(force=False):
    html = render_to_string("inbound/_voicemail_body.html", voicemail_context())
    push_changed(VOICEMAIL, html, force)

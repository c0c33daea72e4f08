"""Live pushes of the inbound pages: each body rendered once per change and sent as one
string to the group of the page that shows it (a body that did not change is not sent), for
the pages someone has open (watched.py)."""

import hashlib

from django.template.loader import render_to_string

from dashboard.live.groups import push_html
from dashboard.shared import metrics

from . import watched
from .pages import queue_context, queues_context, voicemail_context

QUEUES = "inbound-queues"
VOICEMAIL = "inbound-voicemail"
_sent: dict[str, str] = {}  # group -> digest of the last html pushed to it, and its mark


def queue_group(queue_id: str) -> str:
    """A group name from an id the service chose (group names allow few characters)."""
    return "inbound-queue-" + hashlib.sha256(queue_id.encode()).hexdigest()[:24]


def push_changed(group: str, html: str, mark: str, numbered: str = ""):
    """Push `html` unless the group was last pushed it under the same mark (watched.py: a
    socket that joined since gets it even unchanged); its `numbered` part is left out of
    the comparison."""
    same = html.replace(numbered, "", 1) if numbered else html
    digest = hashlib.sha256(f"{mark}\n{same}".encode()).hexdigest()
    if _sent.get(group) != digest:
        _sent[group] = digest
        push_html(group, html)


def render(page: str, template: str, context: dict) -> str:
    metrics.BODIES_RENDERED.labels(page).inc()
    return render_to_string(template, context)


def board_changed(board: dict):
    """After each pass of the board: the queues list, each queue's page, the voicemail, of
    those open. A page no one follows forgets what it was sent: its next watcher's first
    push is never taken for one it already has."""
    queues = {queue_group(row["id"]): row["id"] for row in board["queues"]}
    groups = {QUEUES: None, VOICEMAIL: None} | queues
    followed = watched.watched(list(groups))
    for group in groups.keys() - followed:
        _sent.pop(group, None)
    if QUEUES in followed:
        html = render("queues", "inbound/_queues_body.html", queues_context())
        push_changed(QUEUES, html, followed[QUEUES])
    for group, queue_id in queues.items():
        if group in followed:
            html = render("queue", "inbound/_queue_body.html", queue_context(queue_id))
            push_changed(group, html, followed[group])
    if VOICEMAIL in followed:
        push_voicemail(followed[VOICEMAIL])


def voicemail_changed():
    """A message was marked handled: the backlog's page, if open, at once."""
    followed = watched.watched([VOICEMAIL])
    if VOICEMAIL in followed:
        push_voicemail(followed[VOICEMAIL])


def push_voicemail(mark: str):
    """The backlog's body, unless only its number changed (handled.py)."""
    context = voicemail_context()
    html = render("voicemail", "inbound/_voicemail_body.html", context)
    push_changed(VOICEMAIL, html, mark, numbered=f' data-version="{context["version"]}"')

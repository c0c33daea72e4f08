"""Pushing one rendered string to every socket of a group: a `push.html` message, framed
once per process by its relay (fanout.py) and written to each `PushConsumer` socket."""

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


def push_html(group: str, html: str):
    """From sync code (a view, the processor's thread): send `html` to `group`'s sockets."""
    async_to_sync(get_channel_layer().group_send)(group, {"type": "push.html", "html": html})

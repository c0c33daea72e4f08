"""Marking a voicemail message handled: asked of the service while the supervisor waits,
recording who (the service keeps `handled_by`). A message someone else handled meanwhile
says so instead of failing; every open backlog page is pushed at once, and the message
never shows again (handled.py)."""

import logging

from channels.db import database_sync_to_async
from django.contrib import messages

from dashboard.upstream import inbound as up
from dashboard.upstream.errors import UpstreamError
from dashboard.upstream.on_request import service

from .handled import remember
from .publish import voicemail_changed

log = logging.getLogger("dashboard.inbound.control")


def who(user) -> str:
    return (user.get_full_name() or user.get_username())[:120]


async def mark_handled(user, message_id: str) -> tuple[int, str]:
    """(message level, the sentence to show)."""
    try:
        done, by = await up.mark_handled(service(), message_id, who(user))
    except LookupError:
        return messages.ERROR, "The service has no such voicemail message."
    except UpstreamError as failed:
        log.warning("marking voicemail %s handled failed: %s", message_id, failed)
        return messages.ERROR, f"The message is not marked handled: {failed}"
    # Remembered before the push: no board or body rendered from here on shows it.
    await database_sync_to_async(remember)(message_id)
    await database_sync_to_async(voicemail_changed)()
    if done:
        log.info("%s marked voicemail %s handled", user.get_username(), message_id)
        return messages.SUCCESS, "The message is marked handled."
    return messages.INFO, f"{by or 'Someone else'} had already handled this message."

"""A voicemail message marked handled never shows again, whatever was read or rendered
before the mark.

Two things could bring it back until the next read of the service: the board redraws from
its last pass's reads on every queue event, and a body rendered just before the mark may be
pushed after the mark's own. So the mark is remembered (an hour, well past the next read)
and every board and body leaves remembered messages out; and every render of the backlog's
body takes a number first, from one counter every process shares, which the page keeps
(`data-version`): the page drops a pushed body numbered below the one it shows
(static/js/inbound.js). A render numbered below the mark's own began before the mark was
remembered; one numbered above it began after, so it leaves the message out."""

import hashlib
import time

from django.core.cache import cache

REMEMBERED_S = 3600
VERSION_KEY = "inbound:voicemail-version"


def _key(message_id: str) -> str:
    return "inbound:handled:" + hashlib.sha256(message_id.encode()).hexdigest()[:32]


def remember(message_id: str) -> None:
    cache.set(_key(message_id), True, REMEMBERED_S)


def handled(message_ids: list[str]) -> set[str]:
    """Those of `message_ids` marked handled here lately."""
    got = cache.get_many([_key(m) for m in message_ids]) if message_ids else {}
    return {m for m in message_ids if _key(m) in got}


def without(part: dict, gone: set[str]) -> dict:
    """The board's voicemail part without the messages `gone` (marked handled here); each
    counts as handled today, as the service's next read will say."""
    left = [m for m in part["messages"] if m["id"] not in gone]
    if len(left) == len(part["messages"]):
        return part
    return {
        **part,
        "messages": left,
        "oldest_s": left[0]["age_s"] if left else None,
        "handled_today": part["handled_today"] + len(part["messages"]) - len(left),
    }


def next_version() -> int:
    """The next number of a render of the backlog's body. A counter lost (a cache emptied)
    starts again from the clock's milliseconds, above any number it gave before."""
    try:
        return cache.incr(VERSION_KEY)
    except ValueError:
        cache.add(VERSION_KEY, int(time.time() * 1000), None)
        return cache.incr(VERSION_KEY)

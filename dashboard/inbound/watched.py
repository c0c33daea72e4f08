"""Which inbound pages someone has open: the board renders and pushes only those.

Each page's socket marks its group when it connects, one cache key a group (no read,
modify and write that two workers could race). Sockets reconnect at least every
`SOCKET_MAX_AGE_S` (AccessGuard), so a mark lasts that long and a margin. With no page open,
rendering every queue's page at each pass of the board cost the floor more CPU than its
pushes.

A socket marks its group again, with a new mark, once it has joined it: the board's next
pass then pushes that page even if it did not change, so a change pushed between the body
a socket was sent and its join is not lost to it.
"""

import uuid

from django.conf import settings
from django.core.cache import cache

PREFIX = "inbound:watched:"  # + group: a socket of that page connected within the ttl


def ttl_s() -> float:
    return settings.SOCKET_MAX_AGE_S + 600


def mark(group: str):
    cache.set(PREFIX + group, uuid.uuid4().hex, timeout=ttl_s())


def watched(groups: list[str]) -> dict[str, str]:
    """Those of `groups` some socket follows, each with its latest mark."""
    got = cache.get_many([PREFIX + group for group in groups])
    return {key.removeprefix(PREFIX): mark for key, mark in got.items()}

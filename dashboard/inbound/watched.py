"""Which inbound pages someone has open: the board renders and pushes only those.

Each page's socket marks its group when it connects, one cache key a group (no read,
modify and write that two workers could race). Sockets reconnect at least every
`SOCKET_MAX_AGE_S` (AccessGuard), so a mark lasts that long and a margin. With no page open,
rendering every queue's page at each pass of the board cost the floor more CPU than its
pushes.
"""

from django.conf import settings
from django.core.cache import cache

PREFIX = "inbound:watched:"  # + group: a socket of that page connected within the ttl


def ttl_s() -> float:
    return settings.SOCKET_MAX_AGE_S + 600


def mark(group: str):
    cache.set(PREFIX + group, 1, timeout=ttl_s())


def watched(groups: list[str]) -> set[str]:
    """Those of `groups` some socket follows."""
    got = cache.get_many([PREFIX + group for group in groups])
    return {key.removeprefix(PREFIX) for key in got}

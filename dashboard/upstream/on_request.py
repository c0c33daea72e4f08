"""The service's REST client for pages: what a person asks for on a page (a call's record,
a recording's address, starting a campaign) is asked of the service while they wait.

One client per process and event loop, signed in on first use and kept fresh like the
bridge's (an httpx client belongs to the loop it was made on; Daphne has one, tests one per
test). Pages fail fast: one retry and a short timeout, so a slow service makes a page say
what it could not fetch instead of hanging it; a sign-in that fails is not retried (the
bridge's session would retry for ever), so an auth provider that is down does not hang it.
"""

import asyncio

import httpx
from django.conf import settings

from .rest import RestClient, from_settings

_clients: dict[asyncio.AbstractEventLoop, RestClient] = {}


def service() -> RestClient:
    """This loop's client (made on first use; its session signs in on its first request)."""
    loop = asyncio.get_running_loop()
    rest = _clients.get(loop)
    if rest is None:
        for gone in [other for other in _clients if other.is_closed()]:
            del _clients[gone]
        client = httpx.AsyncClient()
        rest = _clients[loop] = from_settings(
            client, attempts=2, timeout=settings.UPSTREAM_PAGE_TIMEOUT_S, sign_in_attempts=1
        )
    return rest

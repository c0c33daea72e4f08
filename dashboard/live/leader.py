"""One active bridge per organisation: a lease in Redis.

Several `manage.py bridge` processes may run; the one holding the lease does the bridge's
work, the others try to take the lease every `poll` seconds. The holder renews it with a
compare-and-set script well before it lapses and releases it on a clean stop, so a
follower takes over at once after a clean stop and within `ttl + poll` after a crash.

Fencing: a holder that cannot renew in time cancels its work before the lease can lapse,
and publishers ask `still_leading()` before each push, so a process that froze past its
lease publishes nothing when it wakes, whatever runs first. Times are measured on this
machine's monotonic clock from the start of the call that set the lease, so Redis's clock
never matters.
"""

import asyncio
import contextvars
import functools
import hashlib
import logging
import os
import secrets
import socket
import time

import redis.asyncio as redis
from django.conf import settings

from dashboard.shared import metrics
from dashboard.shared.aio import pause

log = logging.getLogger("dashboard.live.leader")
_held: contextvars.ContextVar["Lease | None"] = contextvars.ContextVar("lease", default=None)

RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class Lease:
    def __init__(self, client: redis.Redis, key: str, *, ttl: float = 5.0):
        self.client = client
        self.key = key
        self.ttl = ttl
        self.renew_every = ttl / 5
        self.margin = ttl / 5  # stop this long before the lease could lapse
        self.token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.valid_until = 0.0

    async def acquire(self) -> bool:
        started = time.monotonic()
        if await self.client.set(self.key, self.token, nx=True, px=int(self.ttl * 1000)):
            self.valid_until = started + self.ttl
            return True
        return False

    async def renew(self) -> bool:
        started = time.monotonic()
        if await self.client.eval(RENEW, 1, self.key, self.token, int(self.ttl * 1000)):
            self.valid_until = started + self.ttl
            return True
        return False

    def valid(self) -> bool:
        return time.monotonic() < self.valid_until - self.margin

    async def release(self):
        await self.client.eval(RELEASE, 1, self.key, self.token)

    async def hold(self):
        """Renew until the lease is lost; returns then, while it is still ours."""
        while True:
            await asyncio.sleep(self.renew_every)
            fence_at = self.valid_until - self.margin
            try:
                async with asyncio.timeout(max(fence_at - time.monotonic(), 0)):
                    if not await self.renew():
                        log.warning("the lease %s was taken by another bridge", self.key)
                        return
            except Exception as exc:  # Redis slow or away: retry until the fence
                metrics.store_error(exc)
                if time.monotonic() >= fence_at:
                    log.warning("the lease %s could not be renewed in time (%r)", self.key, exc)
                    return
                log.info("renewing the lease %s failed, retrying: %r", self.key, exc)


async def lead(work, stop: asyncio.Event, lease: Lease, poll: float = 1.0):
    """Run `work(work_stop)` only while holding `lease`; follow (poll for it) otherwise."""
    said = ""  # the last thing logged about the lease: a follower logs changes only
    while not stop.is_set():
        try:
            acquired = await lease.acquire()
        except Exception as exc:
            metrics.store_error(exc)
            acquired = False
            if said != "unreachable":
                log.warning("lease %s not reachable, retrying: %r", lease.key, exc)
                said = "unreachable"
        else:
            if not acquired and said != "following":
                log.info("following: another bridge holds %s", lease.key)
                said = "following"
        if not acquired:
            await pause(stop, poll)
            continue
        log.info("leading: this bridge holds %s", lease.key)
        said = ""
        await _run_while_held(work, stop, lease)


async def _run_while_held(work, stop: asyncio.Event, lease: Lease):
    work_stop = asyncio.Event()
    context = contextvars.copy_context()
    context.run(_held.set, lease)  # the work and every task it starts see this lease
    task = asyncio.get_running_loop().create_task(work(work_stop), context=context)
    holder = asyncio.ensure_future(lease.hold())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, holder, stopping}, return_when=asyncio.FIRST_COMPLETED)
        work_stop.set()  # threads the work started see this too
        if holder.done():
            task.cancel()  # fenced: no await between losing the lease and stopping
        await asyncio.wait({task}, timeout=10)
        if task.done() and not task.cancelled() and task.exception():
            raise task.exception()
    finally:
        for t in (task, holder, stopping):
            t.cancel()
        try:  # only if it is still ours: a follower need not wait for it to lapse
            await lease.release()
        except Exception as exc:
            log.warning("lease %s not released (it lapses by itself): %r", lease.key, exc)


def still_leading() -> bool:
    """False once the lease the calling work runs under may have lapsed; True without one."""
    lease = _held.get()
    return lease is None or lease.valid()


def lease_key() -> str:
    """The lease's name for the configured tenant. The service user belongs to exactly one
    organisation, so the configured service and user name it before any sign-in: followers
    then make no calls to the service at all, and a failed sign-in is reported by the
    leader like any other upstream error."""
    tenant = f"{settings.UPSTREAM_BASE_URL}\n{settings.UPSTREAM_EMAIL}".encode()
    return f"dashboard:bridge-leader:{hashlib.sha256(tenant).hexdigest()[:16]}"


def only_when_leading(work):
    """`work` wrapped to run under the Redis lease (used when REDIS_URL is set)."""

    @functools.wraps(work)
    async def led(stop: asyncio.Event):
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=settings.BRIDGE_LEASE_S)
        try:
            await lead(work, stop, Lease(client, lease_key(), ttl=settings.BRIDGE_LEASE_S))
        finally:
            await client.aclose()

    return led

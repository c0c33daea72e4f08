"""The service's summaries as last pulled: one cache entry per summary, shared by every
web process. An entry keeps its last good data with the time it was fetched, and the last
error with its time, so a failed pull never blanks a page: the page says how old it is.
A summary of an optional group the service does not offer is kept as `offered` False."""

from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache

from dashboard.shared.aio import cache_work

NAMES = ("campaigns", "scorecards", "templates", "compliance", "coaching", "ai")
OUTBOUND = ("dialer_queue", "callbacks", "pending_bookings", "ai_dialer")  # outbound operations
NAMES += OUTBOUND


def key(name: str) -> str:
    return f"reports:{name}"


def empty() -> dict:
    return {"data": None, "fetched_at": None, "error": "", "failed_at": None, "offered": True}


def load(name: str) -> dict:
    """The entry with `stale` (older than twice the refresh interval, or never fetched)."""
    entry = {**empty(), **(cache.get(key(name)) or {})}
    entry["stale"] = is_stale(entry["fetched_at"])
    entry["stale_after_s"] = 2 * settings.UPSTREAM_REFRESH_INTERVAL_S
    return entry


def is_stale(fetched_at: datetime | None, now: datetime | None = None) -> bool:
    if fetched_at is None:
        return True
    age = ((now or datetime.now(UTC)) - fetched_at).total_seconds()
    return age > 2 * settings.UPSTREAM_REFRESH_INTERVAL_S


async def store_good(name: str, data, at: datetime):
    await cache_work(cache.set, key(name), {**empty(), "data": data, "fetched_at": at}, None)


async def store_failure(name: str, error: str, at: datetime):
    """Keep the last good data; only the error and its time change."""
    entry = {**empty(), **(await cache_work(cache.get, key(name)) or {})}
    await cache_work(cache.set, key(name), {**entry, "error": error, "failed_at": at}, None)


async def store_not_offered(name: str, at: datetime):
    """The service answered 404 or 405 for the summary's whole path: it lacks the feature,
    which is no failure (no error, not stale); the page hides that panel and says why."""
    await cache_work(cache.set, key(name), {**empty(), "fetched_at": at, "offered": False}, None)


async def replace_data(name: str, data):
    """What an action's answer told us (a campaign just started) is newer than the last
    pull: it replaces the data, and the pull's time stays the page's "as of"."""
    entry = {**empty(), **(await cache_work(cache.get, key(name)) or {})}
    await cache_work(cache.set, key(name), {**entry, "data": data}, None)

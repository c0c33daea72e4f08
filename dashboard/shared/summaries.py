"""The service's summaries as last pulled: one cache entry per summary, shared by every
web process. An entry keeps its last good data with the time it was fetched, and the last
error with its time, so a failed pull never blanks a page: the page says how old it is."""

from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache

NAMES = ("campaigns", "scorecards", "templates", "compliance", "coaching", "ai")


def key(name: str) -> str:
    return f"reports:{name}"


def empty() -> dict:
    return {"data": None, "fetched_at": None, "error": "", "failed_at": None}


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
    await cache.aset(key(name), {**empty(), "data": data, "fetched_at": at}, timeout=None)


async def store_failure(name: str, error: str, at: datetime):
    """Keep the last good data; only the error and its time change."""
    entry = {**empty(), **(await cache.aget(key(name)) or {})}
    await cache.aset(key(name), {**entry, "error": error, "failed_at": at}, timeout=None)

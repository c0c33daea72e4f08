"""The replay keeps REPLAY_DAYS days, today counted, in the organisation's zone; older
days are purged once a day by the leading bridge and by `manage.py purge_replay` (the
agents' states with them where the agent's day does not keep them longer)."""

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction

from dashboard.live.state import day_start
from dashboard.shared.aio import daily_purge
from dashboard.states import retention as states

from .models import Chunk, Gap, Roster

log = logging.getLogger("dashboard.replay.retention")


def zone() -> ZoneInfo:
    return ZoneInfo(settings.TIME_ZONE)


def cutoff(days: int | None = None, now: datetime | None = None) -> datetime:
    """Midnight of the oldest day kept."""
    tz = zone()
    today = (now or datetime.now(UTC)).astimezone(tz).date()
    return day_start(today - timedelta(days=(days or settings.REPLAY_DAYS) - 1), tz)


@transaction.atomic
def purge(days: int | None = None) -> dict[str, int]:
    before = cutoff(days)
    return {
        "chunks": Chunk.objects.filter(start__lt=before).delete()[0],
        "gaps": Gap.objects.filter(end__lt=before).delete()[0],
        "rosters": Roster.objects.filter(day__lt=before.astimezone(zone()).date()).delete()[0],
        "state rows": states.expired(before, settings.RETENTION_DAYS).delete()[0],
    }


async def run_purge(stop: asyncio.Event):
    """Purge now, then once a day."""
    await daily_purge(stop, purge, log, f"replay days older than {settings.REPLAY_DAYS}")

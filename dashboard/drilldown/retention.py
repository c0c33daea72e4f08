"""Transcripts and call records are kept RETENTION_DAYS, then purged (docs/privacy.md).

Purged: completed calls with their transcripts, the calls the journal kept, the agents'
states (the one record, where the replay does not keep them either: states/retention.py),
the webhook deliveries whose bodies carried them, and the interventions' audit. Run once a
day by the bridge's background work (with several bridges, by the leader) and by
`manage.py purge_expired`.
"""

import asyncio
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from dashboard.interventions.audit import purgeable
from dashboard.quality.models import CompletedCall, Delivery
from dashboard.shared.aio import daily_purge
from dashboard.states import retention as states

from .models import CallSeen

log = logging.getLogger("dashboard.drilldown.retention")


def cutoff(days: int | None = None, now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(
        days=settings.RETENTION_DAYS if days is None else days
    )


@transaction.atomic
def purge(days: int | None = None) -> dict[str, int]:
    """Delete what is older than `days` (RETENTION_DAYS); how many of each went."""
    before = cutoff(days)
    gone = {
        "completed calls": CompletedCall.objects.filter(completed_at__lt=before),
        "calls seen": CallSeen.objects.filter(
            Q(started_at__lt=before) | Q(started_at=None, ended_at__lt=before)
        ),
        "state rows": states.expired(before, settings.REPLAY_DAYS),
        "webhook deliveries": Delivery.objects.filter(received_at__lt=before),
        "interventions": purgeable(before),
    }
    return {what: rows.delete()[0] for what, rows in gone.items()}


async def run_retention(stop: asyncio.Event):
    """Purge now, then once a day."""
    await daily_purge(stop, purge, log, f"what is older than {settings.RETENTION_DAYS} days")

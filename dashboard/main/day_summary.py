"""At the end of each day, that day against its normal (`normal.summary`) through the
alert chat webhook when one is configured: queued on the alert notifier
(`alerts.notify.Notifier`), which signs, paces, retries and logs it with the alerts'
posts. Part of the bridge, so one bridge sends it once."""

import asyncio
import logging
from datetime import UTC, date, datetime, time, timedelta

from channels.db import database_sync_to_async

from dashboard.alerts.notify import Notifier
from dashboard.normal.summary import SUMMARY, day_summary, payload
from dashboard.shared.aio import pause
from dashboard.shared.charts import zone

log = logging.getLogger("dashboard.main.day_summary")
AFTER_S = 5 * 60  # past midnight: the day's last slot is written, its stragglers counted


def wait_s(now: datetime) -> float:
    """Until AFTER_S past the next midnight in the organisation's zone."""
    local = now.astimezone(zone())
    midnight = datetime.combine(local.date() + timedelta(days=1), time.min, zone())
    return (midnight - local).total_seconds() + AFTER_S


async def send_day(notifier: Notifier, day: date):
    """Work out `day`'s summary (in a thread) and queue it for the chat webhook."""
    summary = await database_sync_to_async(day_summary, thread_sensitive=False)(day)
    notifier.send(None, SUMMARY, payload(summary), datetime.now(UTC))


async def run_day_summaries(stop: asyncio.Event, notifier: Notifier):
    if not notifier.enabled:
        return
    while not stop.is_set():
        await pause(stop, wait_s(datetime.now(UTC)))
        if stop.is_set():
            return
        ended = datetime.now(zone()).date() - timedelta(days=1)
        try:
            await send_day(notifier, ended)
        except Exception:
            log.exception("the summary of %s was not sent", ended)

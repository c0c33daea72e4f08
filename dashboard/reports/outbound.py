"""The outbound operations' figures: how long a campaign's pending leads last at its
current dial rate, callbacks due soon and missed today, the bookings the AI left pending
and the AI dialer's concurrency. Computed here and only here, from what the refresher keeps
(the summaries cache and the dial counter's recent pulls), so the campaign pages and the
alert engine read the same numbers: `leads_runway_min` ("pending leads running low") and
`callbacks_missed_today` ("callbacks missed") are its metrics.

Formulas and windows: docs/metrics.md, "Outbound operations".
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.cache import cache

from dashboard.shared import summaries
from dashboard.shared.aio import cache_work
from dashboard.shared.today import start_of_today
from dashboard.upstream import contract as c

RATE_WINDOW = timedelta(minutes=15)  # the dial rate is measured over the pulls of this window
CALLBACKS_AHEAD = timedelta(hours=1)  # "due in the next hour"; the refresher asks this far
RUNWAY_WARNING_MIN = 60  # pending leads that last less than this are "running low"
DIALING_KEY = "reports:dialing"  # campaign id -> [(pulled at, dialedContacts)] of the window
OPEN_CALLBACKS = ("scheduled", "due")


@dataclass(frozen=True, slots=True)
class DialRate:
    per_min: float
    over_min: float  # the span of the pulls it was measured over (at most the window)


async def record_dialing(campaigns: list[c.Campaign], now: datetime):
    """Keep each campaign's `dialedContacts` as pulled over the last RATE_WINDOW, in the
    cache: every process (and a bridge that takes over) reads the same samples. A counter
    that went down (the service reset it) starts its samples again."""
    kept = await cache_work(cache.get, DIALING_KEY) or {}
    since = now - RATE_WINDOW
    samples = {}
    for x in campaigns:
        earlier = [(at, n) for at, n in kept.get(x.id, ()) if since <= at < now]
        earlier = [(at, n) for at, n in earlier if n <= x.dialed_contacts]
        samples[x.id] = [*earlier, (now, x.dialed_contacts)]
    await cache_work(cache.set, DIALING_KEY, samples, None)


def dial_rate(samples) -> DialRate | None:
    """Contacts dialed per minute: how much `dialedContacts` grew from the oldest pull of
    the window to the newest, over the time between them; None before two pulls."""
    if len(samples) < 2:
        return None
    (first_at, first), (last_at, last) = samples[0], samples[-1]
    minutes = (last_at - first_at).total_seconds() / 60
    return DialRate((last - first) / minutes, minutes) if minutes > 0 else None


def runway_min(pending: int, rate: DialRate | None, dialing: bool = True) -> float | None:
    """Minutes until the pending leads run out at the current dial rate: pending ÷ rate.
    0 when none are pending; None when the campaign is not dialing (stopped, or no rate yet,
    or 0 a minute)."""
    if pending == 0:
        return 0.0
    if not dialing or rate is None or rate.per_min <= 0:
        return None
    return pending / rate.per_min


def queue_row(queue: c.DialerQueue, rate: DialRate | None, dialing: bool) -> dict:
    """`dialing`: the campaign is active (a stopped one's leads wait, they do not run out)."""
    runway = runway_min(queue.pending, rate, dialing)
    return {
        "dialing": dialing,
        "pending": queue.pending,
        "retry_scheduled": queue.retry_scheduled,
        "exhausted": queue.exhausted,
        "next_attempt_at": queue.next_attempt_at,
        "rate": rate,
        "runway_min": runway,
        "low": runway is not None and runway < RUNWAY_WARNING_MIN,
    }


def queue_rows() -> dict[str, dict]:
    """Each campaign's dialer queue with its dial rate and runway (empty until pulled). A
    campaign missing from the campaigns summary is judged by its queue alone."""
    rates = cache.get(DIALING_KEY) or {}
    status = {x.id: x.status for x in summaries.load("campaigns")["data"] or []}
    return {
        q.campaign_id: queue_row(
            q,
            dial_rate(rates.get(q.campaign_id, ())),
            status.get(q.campaign_id, "active") == "active",
        )
        for q in summaries.load("dialer_queue")["data"] or []
    }


def is_due_soon(callback: c.Callback, now: datetime) -> bool:
    """Not yet made (scheduled or due, overdue ones too) and due before the hour is out."""
    return callback.status in OPEN_CALLBACKS and callback.due_at < now + CALLBACKS_AHEAD


def is_missed_today(callback: c.Callback, since: datetime) -> bool:
    return callback.status == "missed" and callback.due_at >= since


def callbacks_of(campaign_id: str, now: datetime, since: datetime) -> dict:
    """The campaign's callbacks due in the next hour (soonest first) and missed today
    (latest first), as last pulled."""
    rows = [x for x in summaries.load("callbacks")["data"] or [] if x.campaign_id == campaign_id]
    due = sorted((x for x in rows if is_due_soon(x, now)), key=lambda x: x.due_at)
    missed = sorted((x for x in rows if is_missed_today(x, since)), key=lambda x: x.due_at)
    return {"due": due, "missed": missed[::-1]}


def callbacks_due_counts(now: datetime) -> dict[str, int]:
    """Callbacks due in the next hour, per campaign (the campaigns list's column)."""
    counts: dict[str, int] = {}
    for x in summaries.load("callbacks")["data"] or []:
        if x.campaign_id and is_due_soon(x, now):
            counts[x.campaign_id] = counts.get(x.campaign_id, 0) + 1
    return counts


def ai_dialer_row(campaign_id: str) -> c.AiDialerCampaign | None:
    data = summaries.load("ai_dialer")["data"] or []
    return next((x for x in data if x.campaign_id == campaign_id), None)


def pending_bookings_of(campaign_id: str) -> list[c.PendingBooking]:
    """The bookings the AI could not complete, newest first, as last pulled."""
    data = summaries.load("pending_bookings")["data"] or []
    rows = [x for x in data if x.campaign_id == campaign_id]
    return sorted(rows, key=lambda x: x.created_at.timestamp() if x.created_at else 0, reverse=True)


# ---- The alert engine's metrics ----------------------------------------------------------
def leads_runway_min(campaign_id: str) -> float | None:
    """ "Pending leads running low": minutes until the campaign's pending leads run out at
    its current dial rate (None: unknown, or not dialing)."""
    row = queue_rows().get(campaign_id)
    return row["runway_min"] if row else None


def callbacks_missed_today(campaign_id: str) -> int:
    """ "Callbacks missed": the campaign's callbacks the service marked missed, due today."""
    since = start_of_today()
    data = summaries.load("callbacks")["data"] or []
    return sum(1 for x in data if x.campaign_id == campaign_id and is_missed_today(x, since))

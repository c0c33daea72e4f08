"""Each queue's calls per 15-minute slot, today's and the past days' the normal is drawn
from, as the panel and the summary read them. The service gives a queue's totals since a
time, not per slot, so a day counts from the first whole slot after the dashboard's first
read of that queue; what came before it is not known, which is not zero."""

from datetime import date, datetime, timedelta

from django.db.models import Count, Max, Q, Sum

from dashboard.inbound.models import COUNTERS, QueueBaseline, QueueSlot
from dashboard.live.state import SLOT, slot_of
from dashboard.shared.charts import on_day

from .floor import DayNormal, count_noise, midnight
from .method import Normal, normal_of

_past_queues: dict = {}  # fingerprint of the past days' queue slots -> their part


def queue_days(normal: DayNormal) -> dict[str, dict[date, dict[datetime, list[int]]]]:
    """Queue -> day (today and the past days held) -> today's slot -> [offered (open or
    closed), answered, within target, abandoned, abandoned short (open minutes only)]. The
    past days' part is read again only when what they hold changed."""
    past = Q()
    for day in normal.days:
        past |= Q(start__gte=midnight(day), start__lt=midnight(day + timedelta(days=1)))
    held = QueueSlot.objects.filter(past) if normal.days else QueueSlot.objects.none()
    key = (
        normal.today,
        *normal.days,
        *held.aggregate(Count("id"), Max("id"), *map(Sum, COUNTERS)).values(),
    )
    if key not in _past_queues:
        _past_queues.clear()
        _past_queues[key] = _queue_slots(normal.days, normal.today)
    out = {queue: dict(by_day) for queue, by_day in _past_queues[key].items()}
    for queue, slots in _queue_slots([normal.today], normal.today).items():
        out.setdefault(queue, {}).update(slots)
    return out


class Slots(dict):
    """A queue's day: slot start -> counts, from `since`. What came before a day's first
    read (`QueueBaseline`) is in no slot, so those slots, and the one the read fell in,
    are not known: not zero, and neither a figure of today nor a sample of a normal."""

    def __init__(self, since: datetime):
        super().__init__()
        self.since = since


def _queue_slots(days: list[date], today: date) -> dict:
    out: dict = {}
    for day in days:
        start, end = midnight(day), midnight(day + timedelta(days=1))
        bases = QueueBaseline.objects.filter(day__gte=start, day__lt=end)
        for queue, read_at in bases.values_list("queue_id", "read_at"):
            since = slot_of(read_at)
            since += SLOT if since < read_at else timedelta(0)
            out.setdefault(queue, {})[day] = Slots(on_day(since, today))
        rows = QueueSlot.objects.filter(start__gte=start, start__lt=end).values_list(
            "queue_id", "start", "open", *COUNTERS
        )
        for queue, at, is_open, offered, *counts in rows:
            slots = out.setdefault(queue, {}).setdefault(day, Slots(on_day(start, today)))
            at = slot_of(on_day(at, today))
            if not known(slots, at):
                continue
            slot = slots.setdefault(at, [0] * 5)
            slot[0] += offered
            if is_open:
                slot[1:] = [a + b for a, b in zip(slot[1:], counts, strict=True)]
    return out


def known(slots: dict, at: datetime) -> bool:
    """Whether a queue's day counted the slot at `at` (see `Slots`)."""
    return at >= getattr(slots, "since", at)


def queue_offered(days: dict, today: date, queue: str, at: datetime) -> tuple[int | None, Normal]:
    """The queue's calls offered in today's slot at `at` (None if not known) and their
    normal over the past days that counted that slot."""
    by_day = days.get(queue, {})
    past = {d: s.get(at, [0])[0] for d, s in by_day.items() if d != today and known(s, at)}
    mid = normal_of(past, 0).median or 0
    mine = by_day.get(today, {})
    offered = mine.get(at, [0])[0] if known(mine, at) else None
    return offered, normal_of(past, count_noise(mid))

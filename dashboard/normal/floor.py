"""Today's floor against its normal: each 15-minute slot's figures beside the normal of
the same slot on the same weekday of the last four weeks (FloorSlot and CampaignSlot rows,
which the recorder writes live and the backfill fills from the service's history), and
the forecast of calls offered for the rest of the day."""

import math
from dataclasses import dataclass, field, fields
from datetime import date, datetime, timedelta

from django.db.models import Count, Max, Sum

from dashboard.live.state import Counts, aht_s, occupancy_pct, service_level_pct, slot_of
from dashboard.reports.models import CampaignSlot, FloorSlot
from dashboard.shared.charts import on_day, zone

from .method import WEEKS, Normal, normal_of

NONE = Normal(None, None, None, [])  # no past day held: no normal

COUNTERS = [f.name for f in fields(Counts)]


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    unit: str  # "calls", "s", "%"
    value: object  # Counts -> float | None
    least: object  # median -> the band's smallest half-width
    shown: bool = True  # False: a part other figures are explained by, not a figure


def count_noise(mid: float) -> float:
    return max(2.0, math.sqrt(mid))


FIGURES = [
    Figure("offered", "Calls offered", "calls", lambda x: x.calls, count_noise),
    Figure("completed", "Calls completed", "calls", lambda x: x.completed, count_noise),
    Figure("aht", "Average handle time", "s", aht_s, lambda mid: 30.0),
    Figure("occupancy", "Occupancy", "%", occupancy_pct, lambda mid: 5.0),
    Figure("service_level", "Service level", "%", service_level_pct, lambda mid: 5.0),
    Figure(
        "staffed",
        "Agents' time signed in",
        "s",
        lambda x: x.busy_s + x.available_s,
        lambda mid: 0.1 * mid,
        shown=False,
    ),
    Figure(
        "busy", "Agents' busy time", "s", lambda x: x.busy_s, lambda mid: 0.1 * mid, shown=False
    ),
    Figure(
        "available",
        "Agents' available time",
        "s",
        lambda x: x.available_s,
        lambda mid: 0.1 * mid,
        shown=False,
    ),
]
BY_KEY = {f.key: f for f in FIGURES}


def past_days(today: date) -> list[date]:
    """The same weekday of each of the last `WEEKS` weeks, nearest first."""
    return [today - timedelta(days=7 * w) for w in range(1, WEEKS + 1)]


def midnight(day: date) -> datetime:
    return datetime.combine(day, datetime.min.time(), zone())


@dataclass
class DayNormal:
    today: date
    days: list[date]  # the past days the dashboard holds any slot of
    slots: list[datetime]  # today's slots, 00:00 to 23:45
    actual: dict[datetime, Counts]  # today's slots with a row
    normals: dict[tuple[str, datetime], Normal]  # (figure, today's slot) -> its normal
    campaigns: dict[str, dict] = field(default_factory=dict)  # id -> slot -> (dialed, Normal)
    handles: object = None  # each campaign's handle times (handle.py), once worked out

    def normal(self, key: str, at: datetime) -> Normal:
        return self.normals[key, at]

    def value(self, key: str, at: datetime) -> float | None:
        counts = self.actual.get(at)
        return None if counts is None else BY_KEY[key].value(counts)


def _rows(day: date) -> dict[datetime, Counts]:
    rows = FloorSlot.objects.filter(
        start__gte=midnight(day), start__lt=midnight(day + timedelta(days=1))
    ).values("start", *COUNTERS)
    return {slot_of(r.pop("start")): Counts(**r) for r in rows}


_past: dict = {}  # fingerprint of the past days held -> their part, the last worked out


def _fingerprint(today: date) -> tuple:
    """What the weeks before `today` hold, in two queries: a row added or grown changes it
    (the backfill fills those days while the live recorder writes only today's)."""
    since, until = midnight(past_days(today)[-1]), midnight(today)
    sums = []
    for model, counters in ((FloorSlot, COUNTERS), (CampaignSlot, ("dialed",))):
        rows = model.objects.filter(start__gte=since, start__lt=until)
        sums += rows.aggregate(Count("id"), Max("id"), *(Sum(f) for f in counters)).values()
    return (today, *sums)


def day_normal(today: date) -> DayNormal:
    """Today's slots and each figure's normal per slot, from the past days held (their
    part worked out again only when what they hold changed)."""
    start = midnight(today)
    slots = [start + timedelta(minutes=15 * n) for n in range(96)]
    key = _fingerprint(today)
    if key not in _past:
        _past.clear()
        _past[key] = _past_part(today, slots)
    days, normals, campaigns = _past[key]
    normal = DayNormal(today, days, slots, _rows(today), normals)
    dialed = _dialed(today, today)
    normal.campaigns = {
        campaign: {
            at: (dialed.get(campaign, {}).get(at), campaigns.get(campaign, {}).get(at, NONE))
            for at in slots
        }
        for campaign in {*campaigns, *dialed}
    }
    return normal


def _past_part(today: date, slots: list[datetime]) -> tuple:
    """The past days held, each figure's normal per slot of today, and each campaign's."""
    past = {day: _rows(day) for day in past_days(today)}
    past = {day: rows for day, rows in past.items() if rows}
    on_today = {
        day: {slot_of(on_day(at, today)): x for at, x in rows.items()} for day, rows in past.items()
    }
    normals = {}
    for fig in FIGURES:
        for at in slots:
            samples = {day: fig.value(rows.get(at, Counts())) for day, rows in on_today.items()}
            mid = normal_of(samples, 0).median
            normals[fig.key, at] = normal_of(samples, fig.least(mid or 0))
    return sorted(past), normals, _campaigns(today, list(past), slots)


def _dialed(day: date, today: date) -> dict[str, dict[datetime, int]]:
    """Each campaign's dials per slot of `day`, moved onto today's slots."""
    out: dict[str, dict[datetime, int]] = {}
    rows = CampaignSlot.objects.filter(
        start__gte=midnight(day), start__lt=midnight(day + timedelta(days=1))
    ).values_list("campaign_id", "start", "dialed")
    for campaign, at, n in rows:
        out.setdefault(campaign, {})[slot_of(on_day(at, today))] = n
    return out


def _campaigns(today: date, days: list[date], slots: list[datetime]) -> dict[str, dict]:
    """Each campaign's normal dials per slot (where the dashboard recorded the campaign's
    counters on the past days)."""
    dialed: dict[str, dict[date, dict[datetime, int]]] = {}
    for day in days:
        for campaign, by_slot in _dialed(day, today).items():
            dialed.setdefault(campaign, {})[day] = by_slot
    out = {}
    for campaign, by_day in dialed.items():
        out[campaign] = {}
        for at in slots:
            samples = {day: by_day.get(day, {}).get(at, 0) for day in days if day in by_day}
            mid = normal_of(samples, 0).median or 0
            out[campaign][at] = normal_of(samples, count_noise(mid))
    return out


# ---- The forecast of calls offered ---------------------------------------------------------
@dataclass
class Forecast:
    ready: bool
    weeks: int  # how many past weekdays the normal rests on
    by: datetime | None = None  # the end of the last whole slot
    offered: int = 0  # offered up to `by`
    normal_by: float = 0  # the normal's offered up to `by`
    ratio: float = 1.0  # offered ÷ normal so far
    expected_total: int = 0  # by the end of the day
    normal_total: float = 0
    rest: dict = field(default_factory=dict)  # later slot -> expected offered

    @property
    def above_pct(self) -> int:
        return round(100 * (self.ratio - 1))


def forecast(normal: DayNormal, now: datetime) -> Forecast:
    """Calls offered for the rest of today: the normal of each later slot scaled by how
    today has run so far against its normal (whole slots only)."""
    weeks = min((normal.normal("offered", at).samples for at in normal.slots), default=0)
    current = slot_of(now)
    done = [at for at in normal.slots if at < current]
    medians = {at: normal.normal("offered", at).median or 0 for at in normal.slots}
    if not normal.normal("offered", current).ready:
        return Forecast(False, weeks)
    offered = sum(x.calls for at, x in normal.actual.items() if at < current)
    normal_by = sum(medians[at] for at in done)
    ratio = offered / normal_by if normal_by else 1.0
    rest = {at: ratio * medians[at] for at in normal.slots if at >= current}
    so_far = offered + (normal.actual[current].calls if current in normal.actual else 0)
    now_part = max(0.0, rest.get(current, 0) - (so_far - offered))
    later = sum(v for at, v in rest.items() if at > current)
    return Forecast(
        True,
        weeks,
        by=current,
        offered=offered,
        normal_by=normal_by,
        ratio=ratio,
        expected_total=round(so_far + now_part + later),
        normal_total=sum(medians.values()),
        rest=rest,
    )

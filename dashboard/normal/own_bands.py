"""Each queue and each campaign against its own normal: a queue's calls offered, service
level (open minutes) and calls abandoned, a campaign's dial attempts and average handle
time, per 15-minute slot beside the median and band of the same slot on the same weekday
of the last four weeks. The runs of whole slots one spent outside its band are changes of
their own, reported beside the floor's with their numbers and their page."""

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from django.urls import reverse

from dashboard.inbound.board import service_level

from .floor import NONE, DayNormal
from .handle import campaign_names, handles
from .method import Normal, normal_of, runs_outside
from .queue_slots import known

LEVEL_LEAST = 5.0  # a service level's band is never narrower than this either side
LEVEL_CALLS = 10  # a slot's service level with fewer calls answered or abandoned judges nothing


def count_band(mid: float) -> float:
    """A queue's or campaign's count per slot is small and bumpy (about Poisson): its band
    is never narrower than two of its standard deviations, nor than 3 calls."""
    return max(3.0, 2 * math.sqrt(mid))


@dataclass
class OwnNormal(Normal):
    """A queue's or campaign's normal: its band is never narrower than a count's noise, so
    too noisy to judge is whether the weeks themselves disagree, not how wide that is."""

    weeks_disagree: bool = False

    @property
    def noisy(self) -> bool:
        return self.weeks_disagree


@dataclass
class Series:
    """One queue's or campaign's figure through today."""

    key: str  # "queue:<id>:<figure>", "campaign:<id>:<figure>"
    label: str
    unit: str
    link: str
    value: Callable[[datetime], float | None]  # today's, per slot
    normal: Callable[[datetime], Normal]
    owner: str  # the queue's or campaign's id
    figure: str  # "offered", "service_level", "abandoned"; "dialed", "aht"


def _level(n: list[int]) -> float | None:
    _, answered, within, abandoned, short = n
    if answered + abandoned - short < LEVEL_CALLS:
        return None
    return service_level(within, answered, abandoned, short)


QUEUE_FIGURES = [  # figure, label, unit, its value of a slot's counts, least half-width
    ("offered", "calls offered", "calls", lambda n: n[0], count_band),
    ("service_level", "service level", "%", _level, lambda mid: LEVEL_LEAST),
    ("abandoned", "calls abandoned", "calls", lambda n: n[3], count_band),
]


def queue_series(days: dict, names: dict, today: date) -> list[Series]:
    """`days`: queue -> day -> slot -> counts (queue_slots.queue_days)."""
    out = []
    for queue, by_day in days.items():
        mine = by_day.get(today, {})
        past = {d: slots for d, slots in by_day.items() if d != today}
        for figure, label, unit, of, least in QUEUE_FIGURES:
            empty = [0] * 5

            def value(at, of=of, mine=mine):
                return None if at not in mine else of(mine[at])

            def normal(at, of=of, least=least, past=past, empty=empty):
                samples = {
                    d: of(slots.get(at, empty)) for d, slots in past.items() if known(slots, at)
                }
                spread = normal_of(samples, 0)
                their = normal_of(samples, least(spread.median or 0))
                return OwnNormal(their.median, their.low, their.high, their.days, spread.noisy)

            out.append(
                Series(
                    f"queue:{queue}:{figure}",
                    f"{names.get(queue) or queue} queue {label}",
                    unit,
                    reverse("queue", args=[queue]),
                    value,
                    normal,
                    queue,
                    figure,
                )
            )
    return out


def campaign_series(normal: DayNormal) -> list[Series]:
    """Each campaign's dial attempts (against its own normal dials) and its agents'
    average handle time (against its own normal handle time)."""
    names = campaign_names()
    handled = handles(normal)
    out = []
    for campaign in sorted({*normal.campaigns, *handled.today, *handled.normals}):
        name, link = names.get(campaign, campaign), reverse("campaign", args=[campaign])
        slots = normal.campaigns.get(campaign, {})
        out.append(
            Series(
                f"campaign:{campaign}:dialed",
                f"{name} dial attempts",
                "calls",
                link,
                lambda at, slots=slots: slots[at][0] if at in slots else None,
                lambda at, slots=slots: widened(slots[at][1]) if at in slots else NONE,
                campaign,
                "dialed",
            )
        )
        out.append(
            Series(
                f"campaign:{campaign}:aht",
                f"Average handle time on {name}",
                "s",
                link,
                lambda at, c=campaign: handled.value(c, at),
                lambda at, c=campaign: handled.normal(c, at),
                campaign,
                "aht",
            )
        )
    return out


def widened(their: Normal) -> Normal:
    """A campaign's normal dials (floor.py's, banded for the floor's purposes) with a
    count's band as a campaign's own figures have it."""
    if not their.ready:
        return their
    half = max(their.high - their.median, count_band(their.median))
    low, high = max(0.0, their.median - half), their.median + half
    return OwnNormal(their.median, low, high, their.days, their.noisy)


def series_runs(series: list[Series], slots: list[datetime], current: datetime) -> list:
    """(series, side, first slot, last slot, value before, the band at the first) of each
    run of whole slots before `current` a series spent outside its own band (a noisy band
    judges nothing)."""

    def points(one: Series):
        for at in slots:
            if at >= current:
                return
            value = one.value(at)
            yield at, value, one.normal(at) if value is not None else None

    return [[one, *run] for one in series for run in runs_outside(points(one))]

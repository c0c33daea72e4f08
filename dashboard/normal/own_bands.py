"""Each queue and each campaign against its own normal: a queue's calls offered, service
level (open minutes) and calls abandoned, a campaign's dial attempts and average handle
time, per 15-minute slot beside the median and band of the same slot on the same weekday
of the last four weeks. The runs of whole slots one spent outside its band are changes of
their own, reported beside the floor's with their numbers and their page."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from statistics import median

from django.urls import reverse

from dashboard.inbound.board import service_level

from .floor import DayNormal, count_noise
from .handle import campaign_names, handles
from .method import Normal, normal_of

LEVEL_LEAST = 5.0  # a service level's band is never narrower than this either side


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
    return service_level(within, answered, abandoned, short)


QUEUE_FIGURES = [  # figure, label, unit, its value of a slot's counts, least half-width
    ("offered", "calls offered", "calls", lambda n: n[0], count_noise),
    ("service_level", "service level", "%", _level, lambda mid: LEVEL_LEAST),
    ("abandoned", "calls abandoned", "calls", lambda n: n[3], count_noise),
]


def queue_series(days: dict, names: dict, today: date) -> list[Series]:
    """`days`: queue -> day -> slot -> counts (panel.queue_days)."""
    out = []
    for queue, by_day in days.items():
        mine = by_day.get(today, {})
        past = {d: slots for d, slots in by_day.items() if d != today}
        for figure, label, unit, of, least in QUEUE_FIGURES:
            empty = [0] * 5

            def value(at, of=of, mine=mine):
                return None if at not in mine else of(mine[at])

            def normal(at, of=of, least=least, past=past, empty=empty):
                samples = {d: of(slots.get(at, empty)) for d, slots in past.items()}
                values = [v for v in samples.values() if v is not None]
                return normal_of(samples, least(median(values) if values else 0))

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
                lambda at, slots=slots: slots[at][1] if at in slots else normal_of({}, 0),
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


def series_runs(series: list[Series], slots: list[datetime], current: datetime) -> list:
    """(series, side, first slot, last slot, value before, the band at the first) of each
    run of whole slots before `current` a series spent outside its own band (a noisy band
    judges nothing)."""
    runs = []
    for one in series:
        run, before = None, None
        for at in slots:
            if at >= current:
                break
            value = one.value(at)
            their = one.normal(at) if value is not None else None
            side = 0 if their is None or their.noisy else their.outside(value)
            if side and run and run[1] == side:
                run[3] = at
            elif side:
                run = [one, side, at, at, before, their]
                runs.append(run)
            else:
                run = None
            if value is not None:
                before = value
    return runs

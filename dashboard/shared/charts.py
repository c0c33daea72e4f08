"""Intraday series as the JSON the pages' charts draw, and the same weekday last week
laid over today's axis."""

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings


def chart(
    x: list[datetime], series: list[dict], step_s: int, explains: str | None = None, inputs=()
) -> dict:
    """uPlot's shape: x as epoch seconds (each the start of a `step_s` interval), one list of
    values per series (None = no data). A series with `dash` is last week's, drawn dashed in
    the colour of the series `like` names; `figure` names what a series measures, for the
    normal's overlay (a pair with `band` "low"/"high" is shaded between them, one with
    `forecast` drawn dotted, both in the colour of `like`; a chart's `note` is the sentence
    shown under it). `explains`: the key of the chart's explain panel
    (dashboard/shared/figures.py; None: it has none); `inputs`: the counts behind the chart,
    for that panel."""
    return {
        "tz": settings.TIME_ZONE,
        "step_s": step_s,
        "x": [int(t.timestamp()) for t in x],
        "series": series,
        "explains": explains,
        "inputs": list(inputs),
    }


def zone() -> ZoneInfo:
    return ZoneInfo(settings.TIME_ZONE)


def week_before(today: date) -> tuple[datetime, datetime]:
    """00:00 to 00:00 of the same weekday last week, in the organisation's zone."""
    day = today - timedelta(days=7)
    return (
        datetime.combine(day, datetime.min.time(), zone()),
        datetime.combine(day + timedelta(days=1), datetime.min.time(), zone()),
    )


def on_day(when: datetime, day: date) -> datetime:
    """`when` moved to the same wall-clock time on `day` (not by 168 h: a clock change in
    between would shift it by an hour)."""
    return datetime.combine(day, when.astimezone(zone()).time(), zone())


def with_last_week(series: list[dict], last_week: list[list], weekday: str) -> list[dict]:
    """Each series followed by last week's (dashed, in its colour), where last week has any
    value."""
    out = []
    for one, old in zip(series, last_week, strict=True):
        out.append(one)
        if any(v is not None for v in old):
            dashed = {"label": f"{one['label']}, last {weekday}", "scale": one["scale"]}
            out.append({**dashed, "values": old, "dash": True, "like": len(out) - 1})
    return out

"""Intraday series as the JSON the pages' charts draw."""

from datetime import datetime

from django.conf import settings


def chart(x: list[datetime], series: list[dict], step_s: int) -> dict:
    """uPlot's shape: x as epoch seconds (each the start of a `step_s` interval), one list of
    values per series (None = no data)."""
    return {
        "tz": settings.TIME_ZONE,
        "step_s": step_s,
        "x": [int(t.timestamp()) for t in x],
        "series": series,
    }

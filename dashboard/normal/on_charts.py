"""The live view's intraday charts against the normal: each charted figure the normal has
(a series naming its `figure`) gets its band per slot (shaded between low and high), calls
offered get the forecast for the rest of today, and each chart its one-line sentence.
Where the history is too short the chart says so instead of drawing a band."""

from datetime import datetime, timedelta

from dashboard.reports.filling import noted
from dashboard.reports.metrics import floor_charts as recorded
from dashboard.shared.charts import zone
from dashboard.shared.filling import filling_past_pct, filling_pct, filling_sentence

from .floor import day_normal, forecast
from .method import MAD_TO_SIGMA, MIN_WEEKS, WIDTH
from .pages import forecast_sentence


def floor_charts(since: datetime, now: datetime) -> dict:
    """The floor's intraday charts (the reports' series) with the normal laid over them,
    for the live view and its pushes; while the past weeks it is made of are read, each
    banded chart says so instead (a band from part of them would read as the normal)."""
    charts, past = recorded(since, now), filling_past_pct()
    charts = with_normal(charts, now) if past is None else reading_normal(charts, past)
    return noted(charts, filling_pct())


def reading_normal(charts: dict, pct: int) -> dict:
    note = (
        f"The normal is partial, {filling_sentence(pct, 'the past weeks')}: its band follows "
        "once they are read."
    )
    return {
        chart_id: {**chart, "note": note} if banded(chart) else chart
        for chart_id, chart in charts.items()
    }


def banded(chart: dict) -> bool:
    return any(s.get("figure") in NORMAL_FIGURES for s in chart["series"])


def with_normal(charts: dict, now: datetime) -> dict:
    """`charts` (chart id -> the chart's JSON, dashboard/shared/charts.py) with the normal
    laid over the series that name a figure it has."""
    normal = day_normal(now.astimezone(zone()).date())
    fc = forecast(normal, now)
    weeks = len(normal.days)
    by_x = {int(at.timestamp()): at for at in normal.slots}
    out = {}
    for chart_id, chart in charts.items():
        if not banded(chart):
            out[chart_id] = chart
            continue
        named = [i for i, s in enumerate(chart["series"]) if s.get("figure") in NORMAL_FIGURES]
        chart = {**chart, "series": list(chart["series"])}
        if weeks < MIN_WEEKS:
            out[chart_id] = {**chart, "note": short_history(weeks)}
            continue
        offered = next((i for i in named if chart["series"][i]["figure"] == "offered"), None)
        if offered is not None and fc.ready:
            _extend_to_day_end(chart, normal.slots)
        xs = [by_x.get(x) for x in chart["x"]]
        for like in named:
            one = chart["series"][like]
            their = [None if at is None else normal.normal(one["figure"], at) for at in xs]
            for edge in ("low", "high"):
                values = [_rounded(getattr(n, edge, None) if n else None) for n in their]
                chart["series"].append(
                    {
                        "label": f"{one['label']}: normal band",
                        "scale": one["scale"],
                        "values": values,
                        "band": edge,
                        "like": like,
                    }
                )
        if offered is not None:
            if fc.ready:
                rest = [_rounded(fc.rest.get(at)) if at else None for at in xs]
                chart["series"].append(
                    {
                        "label": "Calls offered: forecast",
                        "scale": "calls",
                        "values": rest,
                        "forecast": True,
                        "like": offered,
                    }
                )
            chart["note"] = forecast_sentence(fc)
        else:
            chart["note"] = f"Shaded: the normal band, from {weeks} same weekdays."
        chart["inputs"] = [*chart["inputs"], explained(weeks)]
        out[chart_id] = chart
    return out


# The figures banded on the charts: one band per axis, so calls ended (the same counts'
# axis as calls offered) keep theirs on the normal's page.
NORMAL_FIGURES = {"offered", "aht", "service_level", "occupancy"}


def explained(weeks: int) -> str:
    return (
        f"Normal band (shaded): per 15 minutes, the median of the same weekday of the last "
        f"{weeks} weeks ± {WIDTH:g} × {MAD_TO_SIGMA} × their median absolute deviation; "
        "forecast (dotted): each later slot's median scaled by today's calls offered so far "
        "÷ their normal"
    )


def short_history(weeks: int) -> str:
    held = f"{weeks} week{'' if weeks == 1 else 's'} of history"
    return f"No normal yet: {held} ({MIN_WEEKS} same weekdays needed)."


def _rounded(value):
    return None if value is None else round(value, 1)


def _extend_to_day_end(chart: dict, slots: list[datetime]):
    """The chart's axis on to today's last slot, so the forecast shows the rest of the
    day (the other series have no value there)."""
    if not chart["x"]:
        return
    step = timedelta(seconds=chart["step_s"])
    last = int((slots[-1] + step).timestamp())
    more = [int(at.timestamp()) for at in slots if chart["x"][-1] < at.timestamp() < last]
    if not more:
        return
    chart["x"] = [*chart["x"], *more]
    chart["series"] = [
        {**s, "values": [*s["values"], *[None] * len(more)]} for s in chart["series"]
    ]

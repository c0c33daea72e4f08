"""The normal laid over the campaign's and the QA page's intraday charts, as over the live
view's (on_charts.py): a campaign's dial attempts per 15 minutes against the median and
band of its own dials at the same time on the same weekday of the last four weeks
(CampaignSlot), and the QA page's average score and scorecards per hour against theirs
(Scorecard). Where those weeks hold too few such days the chart says so instead of
drawing a band. The composition root lays these over (main/apps.py)."""

from datetime import date, datetime, timedelta

from django.db.models import Avg, Count, FloatField
from django.db.models.functions import TruncHour

from dashboard.live.state import slot_of
from dashboard.quality.metrics import qa_percent
from dashboard.quality.models import Scorecard
from dashboard.reports.models import CampaignSlot
from dashboard.shared.charts import on_day, zone

from .floor import count_noise, midnight, past_days
from .method import MAD_TO_SIGMA, MIN_WEEKS, WIDTH, Normal, normal_of
from .on_charts import short_history

QA_LEAST = 5.0  # an average QA score's band is never narrower than this either side


def banded(chart: dict, normals: dict, weeks: int, per: str) -> dict:
    """`chart` with a band beside each series whose `figure` has normals (figure -> x, in
    epoch seconds -> Normal), and its sentence; `weeks`: the same weekdays held."""
    named = [i for i, s in enumerate(chart["series"]) if s.get("figure") in normals]
    if not named:
        return chart
    if weeks < MIN_WEEKS:
        return {**chart, "note": short_history(weeks)}
    series = list(chart["series"])
    for like in named:
        one, by_x = series[like], normals[series[like]["figure"]]
        their = [by_x.get(x) for x in chart["x"]]
        for edge in ("low", "high"):
            values = [_rounded(getattr(n, edge)) if n else None for n in their]
            series.append(
                {
                    "label": f"{one['label']}: normal band",
                    "scale": one["scale"],
                    "values": values,
                    "band": edge,
                    "like": like,
                }
            )
    line = (
        f"Normal band (shaded): per {per}, the median of the same weekday of the last "
        f"{weeks} weeks ± {WIDTH:g} × {MAD_TO_SIGMA} × their median absolute deviation"
    )
    return {
        **chart,
        "series": series,
        "note": f"Shaded: the normal band, from {weeks} same weekdays.",
        "inputs": [*chart["inputs"], line],
    }


def _rounded(value):
    return None if value is None else round(value, 1)


def _normals(xs: list[int], held: dict[date, dict], least, count: bool) -> dict[int, Normal]:
    """Per x, the normal of the days held; a day with no value there counts 0 for a count,
    and is no sample for a ratio. `least(median)`: the band's smallest half-width."""
    out = {}
    for x in xs:
        samples = {day: values.get(x, 0 if count else None) for day, values in held.items()}
        out[x] = normal_of(samples, least(normal_of(samples, 0).median or 0))
    return out


def campaign_over(chart: dict, campaign_id: str, now: datetime) -> dict:
    """A campaign's chart (reports.metrics.campaign_chart) with its dials' own band."""
    today = now.astimezone(zone()).date()
    held: dict[date, dict[int, int]] = {}
    for day in past_days(today):
        rows = CampaignSlot.objects.filter(
            campaign_id=campaign_id,
            start__gte=midnight(day),
            start__lt=midnight(day + timedelta(days=1)),
        ).values_list("start", "dialed")
        for start, dialed in rows:
            at = int(slot_of(on_day(start, today)).timestamp())
            held.setdefault(day, {})[at] = dialed
    normals = {"dialed": _normals(chart["x"], held, count_noise, count=True)}
    return banded(chart, normals, len(held), "15 minutes")


def qa_over(chart: dict, now: datetime) -> dict:
    """The QA page's chart (quality.metrics.qa_trend) with the average score's band and
    the scorecards'."""
    today = now.astimezone(zone()).date()
    scores: dict[date, dict[int, float]] = {}
    counts: dict[date, dict[int, int]] = {}
    for day in past_days(today):
        rows = (
            Scorecard.objects.filter(
                scored_at__gte=midnight(day), scored_at__lt=midnight(day + timedelta(days=1))
            )
            .annotate(hour=TruncHour("scored_at"))
            .values("hour")
            .annotate(n=Count("id"), avg=Avg(qa_percent(), output_field=FloatField()))
        )
        for r in rows:
            at = int(on_day(r["hour"], today).timestamp())
            scores.setdefault(day, {})[at] = r["avg"]
            counts.setdefault(day, {})[at] = r["n"]
    normals = {
        "qa_score": _normals(chart["x"], scores, lambda mid: QA_LEAST, count=False),
        "scorecards": _normals(chart["x"], counts, count_noise, count=True),
    }
    return banded(chart, normals, len(counts), "hour")

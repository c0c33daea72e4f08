"""Day figures from the stored webhook records, computed here and nowhere else, and the
service's own QA counts beside them."""

from datetime import datetime

from django.db.models import Avg, Count, F, FloatField, Q, Sum
from django.db.models.functions import TruncHour

from dashboard.shared import summaries
from dashboard.shared.charts import chart, on_day, week_before, with_last_week, zone
from dashboard.shared.percent import pct
from dashboard.shared.today import start_of_today

from .models import Appointment, CoachingAlert, CompletedCall, Scorecard


def qa_percent():
    """One scorecard's score as a share of its template's maximum, in percent."""
    return F("score") * 100.0 / F("max_score")


def qa_leaderboard(since: datetime, size: int = 10) -> list[dict]:
    """The agents with the best average QA score since `since` (the wallboard's panel)."""
    rows = (
        Scorecard.objects.filter(scored_at__gte=since, max_score__gt=0)
        .exclude(agent_id="")
        .values("agent_id")
        .annotate(
            n=Count("id"),
            passed=Count("id", filter=Q(passed=True)),
            avg=Avg(qa_percent(), output_field=FloatField()),
        )
        .order_by("-avg", "-n", "agent_id")[:size]
    )
    return [
        {
            "agent_id": r["agent_id"],
            "scored": r["n"],
            "avg_pct": round(r["avg"], 1),
            "pass_pct": round(100 * r["passed"] / r["n"]),
        }
        for r in rows
    ]


MOST_SEVERE_FIRST = [s for s, _ in reversed(CoachingAlert.SEVERITIES)]


def open_alert_counts() -> dict[str, int]:
    """Unresolved alerts per severity, the most severe first."""
    counts = dict(
        CoachingAlert.objects.exclude(status=CoachingAlert.RESOLVED)
        .values_list("severity")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {s: counts[s] for s in MOST_SEVERE_FIRST if s in counts}


def today_figures() -> dict:
    since = start_of_today()
    open_alerts = open_alert_counts()
    calls = CompletedCall.objects.filter(completed_at__gte=since).aggregate(
        n=Count("id"), talk=Sum("duration_s")
    )
    qa = Scorecard.objects.filter(scored_at__gte=since).aggregate(
        n=Count("id"),
        passed=Count("id", filter=Q(passed=True)),
        pct=Avg(qa_percent(), output_field=FloatField()),
    )
    return {
        "appointments_today": Appointment.objects.filter(booked_at__gte=since).count(),
        "open_critical": open_alerts.get("critical", 0),
        "calls_completed_today": calls["n"],
        "qa_average_pct": round(qa["pct"], 1) if qa["pct"] is not None else None,
        "qa_pass_rate_pct": round(100 * qa["passed"] / qa["n"], 1) if qa["n"] else None,
        "qa_scored_today": qa["n"],
        "qa_leaderboard": qa_leaderboard(since),
        "open_alerts": open_alerts,
    }


def qa_trend(since: datetime) -> dict:
    """Average QA score per hour since `since` (hours with no scorecard are left out), and
    the same weekday last week's, dashed."""
    today = since.astimezone(zone()).date()
    rows = _hourly(since, None)
    week_from, week_to = week_before(today)
    before = {on_day(hour, today): row for hour, row in _hourly(week_from, week_to).items()}
    xs = sorted({*rows, *before})
    got, old = [rows.get(x) for x in xs], [before.get(x) for x in xs]
    series = [
        {
            "label": "Average QA score %",
            "scale": "%",
            "values": [r and r["avg"] for r in got],
            "figure": "qa_score",
        },
        {
            "label": "Scorecards",
            "scale": "scorecards",
            "kind": "bars",
            "values": [r and r["n"] for r in got],
            "figure": "scorecards",
        },
    ]
    scored = sum(r["n"] for r in rows.values())
    return chart(
        xs,
        with_last_week(
            series, [[r and r["avg"] for r in old], [r and r["n"] for r in old]], f"{week_from:%a}"
        ),
        step_s=3600,
        explains="qa_average",
        inputs=[f"{scored} scorecards today in {len(rows)} hours"],
    )


def _hourly(since: datetime, until: datetime | None) -> dict:
    """Scorecards and their average score per hour, from `since` to before `until`."""
    found = Scorecard.objects.filter(scored_at__gte=since)
    if until:
        found = found.filter(scored_at__lt=until)
    rows = (
        found.annotate(hour=TruncHour("scored_at"))
        .values("hour")
        .annotate(n=Count("id"), avg=Avg(qa_percent(), output_field=FloatField()))
        .order_by("hour")
    )
    return {r["hour"]: {"n": r["n"], "avg": round(r["avg"], 1)} for r in rows}


def service_totals() -> dict:
    """Today's QA, compliance and coaching counts as the service reports them (REST), beside
    what reached the dashboard by webhook. A count is None until its summary was fetched."""
    got = {n: summaries.load(n) for n in ("scorecards", "templates", "compliance", "coaching")}
    cards, checks, alerts, templates = (
        got[n]["data"] for n in ("scorecards", "compliance", "coaching", "templates")
    )

    def count(rows, which=None):
        if rows is None:
            return None
        return len(rows) if which is None else sum(map(which, rows))

    return {
        "summaries": got,
        "scorecards": count(cards),
        "scorecards_passed_pct": None if cards is None else pct(count(cards, _passed), len(cards)),
        "checks": count(checks),
        "checks_failed": count(checks, lambda x: not x.passed),
        "alerts": count(alerts),
        "alerts_critical": count(alerts, lambda a: a.severity == "critical"),
        "template_names": {t.id: t.name for t in templates or []},
    }


def _passed(row) -> bool:
    return row.passed

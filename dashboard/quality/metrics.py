"""Day figures from the stored webhook records, computed here and nowhere else."""

from datetime import datetime, time

from django.db.models import Avg, Count, F, FloatField, Q, Sum
from django.db.models.functions import TruncHour
from django.utils import timezone

from .models import Appointment, CoachingAlert, CompletedCall, Scorecard


def qa_percent():
    """One scorecard's score as a share of its template's maximum, in percent."""
    return F("score") * 100.0 / F("max_score")


def start_of_today() -> datetime:
    """00:00 today in the organisation's zone (TIME_ZONE)."""
    return timezone.make_aware(datetime.combine(timezone.localdate(), time.min))


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
        "qa_leaderboard": qa_leaderboard(since),
        "open_alerts": open_alerts,
    }


def qa_trend(since: datetime) -> dict:
    """Average QA score per hour since `since` (hours with no scorecard are left out)."""
    from dashboard.reports.metrics import chart

    rows = (
        Scorecard.objects.filter(scored_at__gte=since)
        .annotate(hour=TruncHour("scored_at"))
        .values("hour")
        .annotate(n=Count("id"), avg=Avg(qa_percent(), output_field=FloatField()))
        .order_by("hour")
    )
    rows = list(rows)
    return chart(
        [r["hour"] for r in rows],
        [
            {
                "label": "Average QA score %",
                "scale": "%",
                "values": [round(r["avg"], 1) for r in rows],
            },
            {
                "label": "Scorecards",
                "scale": "scorecards",
                "kind": "bars",
                "values": [r["n"] for r in rows],
            },
        ],
        step_s=3600,
    )

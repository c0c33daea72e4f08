"""What the QA and coaching pages show, for the views and for the live pushes alike."""

from datetime import UTC, datetime

from django.db.models import Avg, Count, FloatField, Q

from dashboard.live.names import agent_names
from dashboard.shared.figures import chart_panels, explain
from dashboard.shared.filling import filling_pct, filling_sentence
from dashboard.shared.overlays import laid_over
from dashboard.shared.templatetags.links import named
from dashboard.shared.today import start_of_today

from .metrics import qa_percent, qa_trend, service_totals, today_figures
from .models import CoachingAlert, ComplianceResult, Scorecard
from .templatetags.labels import agent_name


def qa_context() -> dict:
    names, service = agent_names(), service_totals()
    now = datetime.now(UTC)
    filling = filling_pct()
    charts = {"chart-qa": laid_over("qa", qa_trend(start_of_today()), now=now)}
    if filling is not None:  # an average of part of the day would read as the day's
        charts["chart-qa"] = {
            **charts["chart-qa"],
            "note": f"Partial: {filling_sentence(filling)}.",
        }
    return {
        "names": names,
        "service": service,
        "charts": charts,
        "panels": chart_panels(charts) + [explain("pass_rate"), explain("service_counts")],
        "scored": Scorecard.objects.aggregate(
            n=Count("id"), passed=Count("id", filter=Q(passed=True))
        ),
        "recent": Scorecard.objects.order_by("-scored_at")[:25],
        "by_agent": scores_by("agent_id", lambda agent_id: agent_name(agent_id, names)),
        "by_template": scores_by("template_id", lambda t: named(t, service["template_names"])),
        "failures": failures_by_rule(),
        "today": today_figures(),
        "filling_pct": filling,
    }


def failures_by_rule():
    return (
        ComplianceResult.objects.filter(passed=False)
        .values("rule")
        .annotate(n=Count("id"))
        .order_by("-n")
    )


def alerts_matching(chosen: dict):
    """Coaching alerts, newest first, that the page's filters (views.alert_filters) match."""
    alerts = CoachingAlert.objects.order_by("-raised_at")
    for key in ("severity", "status"):
        if chosen[key]:
            alerts = alerts.filter(**{key: chosen[key]})
    if chosen["agent"]:
        alerts = alerts.filter(agent_id=chosen["agent"])
    if chosen["kind"]:
        alerts = alerts.filter(kind=chosen["kind"])
    return alerts


def scores_by(key: str, name, limit: int | None = 50) -> list[dict]:
    """Scorecards, their average and passes per `key` (the `limit` with most), each row
    named."""
    rows = (
        Scorecard.objects.values(key)
        .annotate(
            n=Count("id"),
            avg=Avg(qa_percent(), output_field=FloatField()),
            passed=Count("id", filter=Q(passed=True)),
        )
        .order_by("-n", key)[:limit]
    )
    return [{**row, "name": name(row[key])} for row in rows]

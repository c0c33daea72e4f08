"""What the QA and coaching pages show, for the views and for the live pushes alike."""

from django.core.cache import cache
from django.db.models import Avg, Count, FloatField, Q

from dashboard.live.feed import NAMES_KEY
from dashboard.shared.today import start_of_today

from .metrics import qa_percent, qa_trend, service_totals
from .models import ComplianceResult, Scorecard


def agent_names() -> dict:
    """Webhooks carry agent ids only; the live feed knows their names."""
    return cache.get(NAMES_KEY) or {}


def qa_context() -> dict:
    percent = qa_percent()
    by = {
        key: Scorecard.objects.values(key)
        .annotate(
            n=Count("id"),
            avg=Avg(percent, output_field=FloatField()),
            passed=Count("id", filter=Q(passed=True)),
        )
        .order_by("-n")[:50]
        for key in ("agent_id", "template_id")
    }
    return {
        "names": agent_names(),
        "service": service_totals(),
        "charts": {"chart-qa": qa_trend(start_of_today())},
        "recent": Scorecard.objects.order_by("-scored_at")[:25],
        "by_agent": by["agent_id"],
        "by_template": by["template_id"],
        "failures": ComplianceResult.objects.filter(passed=False)
        .values("rule")
        .annotate(n=Count("id"))
        .order_by("-n"),
    }

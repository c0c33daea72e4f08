"""Coaching (Manager) and QA (Supervisor) pages. Views stay thin: queries live here,
fragments in templates/quality/, live pushes in publish.py."""

from urllib.parse import urlencode

from django.contrib import messages
from django.core.cache import cache
from django.db.models import Avg, Count, FloatField, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from dashboard.accounts.roles import MANAGER, SUPERVISOR, role_required
from dashboard.live.feed import NAMES_KEY
from dashboard.reports.metrics import service_totals

from .metrics import open_alert_counts, qa_percent, qa_trend, start_of_today
from .models import CoachingAction, CoachingAlert, ComplianceResult, Scorecard
from .publish import publish_alert

FILTERS = {
    "severity": [s for s, _ in CoachingAlert.SEVERITIES],
    "status": [s for s, _ in CoachingAlert.STATUSES],
}
DONE = {"acknowledge": "acknowledged", "resolve": "resolved", "reopen": "reopened"}
TRANSITIONS = {  # action: (allowed from, to)
    "acknowledge": ({CoachingAlert.OPEN}, CoachingAlert.ACKNOWLEDGED),
    "resolve": ({CoachingAlert.OPEN, CoachingAlert.ACKNOWLEDGED}, CoachingAlert.RESOLVED),
    "reopen": ({CoachingAlert.RESOLVED, CoachingAlert.ACKNOWLEDGED}, CoachingAlert.OPEN),
}


def agent_names() -> dict:
    """Webhooks carry agent ids only; the live feed knows their names."""
    return cache.get(NAMES_KEY) or {}


def alert_filters(query) -> dict:
    """The filters of the query string that make sense; anything else is ignored."""
    chosen = {k: query.get(k, "") for k in ("severity", "status", "agent", "kind")}
    for key, allowed in FILTERS.items():
        if chosen[key] not in allowed:
            chosen[key] = ""
    chosen["agent"] = chosen["agent"][:200]
    chosen["kind"] = chosen["kind"][:80]
    return chosen


@role_required(MANAGER)
def coaching(request):
    chosen = alert_filters(request.GET)
    alerts = CoachingAlert.objects.order_by("-raised_at")
    for key in ("severity", "status"):
        if chosen[key]:
            alerts = alerts.filter(**{key: chosen[key]})
    if chosen["agent"]:
        alerts = alerts.filter(agent_id=chosen["agent"])
    if chosen["kind"]:
        alerts = alerts.filter(kind=chosen["kind"])
    return render(
        request,
        "quality/coaching.html",
        {
            "names": agent_names(),
            "alerts": alerts.prefetch_related("actions__by")[:200],
            "chosen": chosen,
            "severities": FILTERS["severity"],
            "statuses": FILTERS["status"],
            "kinds": CoachingAlert.objects.values_list("kind", flat=True)
            .distinct()
            .order_by("kind"),
            "counts": open_alert_counts(),
        },
    )


@require_POST
@role_required(MANAGER)
def coaching_action(request, pk, action):
    alert = get_object_or_404(CoachingAlert, pk=pk)
    allowed, to = TRANSITIONS.get(action, (set(), None))
    note = request.POST.get("note", "").strip()[:2000]
    if to is None:
        messages.error(request, "There is no such action on an alert.")
    elif alert.status not in allowed:
        messages.error(request, f"This alert is {alert.status}: it cannot be {DONE[action]}.")
    elif action == "resolve" and not note:
        messages.error(request, "Resolving an alert needs a note of what was done.")
    else:
        alert.status = to
        alert.save(update_fields=["status"])
        CoachingAction.objects.create(alert=alert, action=action, note=note, by=request.user)
        publish_alert(alert)
    kept = {k: v for k, v in alert_filters(request.POST).items() if v}
    return redirect(f"{reverse('coaching')}?{urlencode(kept)}" if kept else "coaching")


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


@role_required(SUPERVISOR)
def qa(request):
    return render(request, "quality/qa.html", qa_context())

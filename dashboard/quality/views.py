"""Coaching (Manager) and QA (Supervisor) pages. Views stay thin: what a page shows is in
pages.py (the live pushes render the same), fragments in templates/quality/, live pushes
in publish.py."""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from dashboard.accounts.roles import MANAGER, SUPERVISOR, role_required
from dashboard.live.names import agent_names
from dashboard.live.publish import live_calls
from dashboard.shared.export import wants_csv
from dashboard.shared.filling import filling_pct

from . import exports
from .metrics import open_alert_counts
from .models import CoachingAction, CoachingAlert
from .pages import alerts_matching, qa_context
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
    if wants_csv(request):
        return exports.coaching(chosen)
    alerts = alerts_matching(chosen)
    return render(
        request,
        "quality/coaching.html",
        {
            "names": agent_names(),
            "live_calls": live_calls(),
            "alerts": alerts.prefetch_related("actions__by")[:200],
            "chosen": chosen,
            "csv_query": urlencode({k: v for k, v in chosen.items() if v}),
            "severities": FILTERS["severity"],
            "statuses": FILTERS["status"],
            "kinds": CoachingAlert.objects.values_list("kind", flat=True)
            .distinct()
            .order_by("kind"),
            "counts": open_alert_counts(),
            "filling_pct": filling_pct(),  # today's alerts from the service's history
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


@role_required(SUPERVISOR)
def qa(request):
    if wants_csv(request):
        return exports.qa(request.GET.get("table", ""))
    return render(request, "quality/qa.html", qa_context())

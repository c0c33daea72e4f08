"""The alerts pages: open and recent alerts (Supervisors), acknowledging one, and the
Managers' rules and webhook delivery log."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from dashboard.accounts import scope
from dashboard.accounts.models import teams_of
from dashboard.accounts.roles import MANAGER, SUPERVISOR, role_required

from . import tray
from .forms import RuleForm
from .models import Alert, Rule
from .pages import alert_context, alerts_context, deliveries_context, rules_context
from .signals import ACK_STAMP, bump


@role_required(SUPERVISOR)
def alerts(request):
    """The person's teams' alerts and everyone's (queues, the floor), or the whole floor's."""
    shown = scope.scope_of(request.GET, teams_of(request.user))
    context = {
        **alerts_context(shown.teams),
        "scope": shown,
        "links": scope.links(request.GET, shown),
        "alert_teams": shown.teams,
    }
    return render(request, "alerts/alerts.html", context)


@role_required(SUPERVISOR)
def alert(request, pk):
    """One alert; a group's lists its agents, live."""
    return render(request, "alerts/alert.html", alert_context(get_object_or_404(Alert, pk=pk)))


@require_POST
@role_required(SUPERVISOR)
def acknowledge(request, pk):
    """Its notifications stop for everyone; it still clears by itself."""
    updated = Alert.objects.filter(
        pk=pk, cleared_at__isnull=True, acknowledged_at__isnull=True
    ).update(acknowledged_at=timezone.now(), acknowledged_by=request.user)
    if updated:
        tray.publish()
        bump(ACK_STAMP)
    fetched = request.headers.get("X-Requested-With") == "fetch"
    if fetched:
        return HttpResponse(status=204 if updated else 409)
    if not updated:
        messages.error(request, "This alert is cleared or already acknowledged.")
    return redirect("alerts")


@role_required(MANAGER)
def rules(request):
    form = RuleForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        rule = form.save()
        messages.success(request, f"Rule “{rule.name}” added.")
        return redirect("alert-rules")
    status = 400 if request.method == "POST" else 200
    return render(request, "alerts/rules.html", rules_context(form), status=status)


@role_required(MANAGER)
def rule(request, pk):
    rule = get_object_or_404(Rule, pk=pk)
    form = RuleForm(request.POST or None, instance=rule)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, f"Rule “{rule.name}” saved.")
        return redirect("alert-rules")
    status = 400 if request.method == "POST" else 200
    return render(request, "alerts/rules.html", rules_context(form, rule), status=status)


@require_POST
@role_required(MANAGER)
def delete_rule(request, pk):
    rule = get_object_or_404(Rule, pk=pk)
    rule.delete()
    tray.publish()  # its alerts went with it
    messages.success(request, f"Rule “{rule.name}” deleted.")
    return redirect("alert-rules")


@role_required(MANAGER)
def deliveries(request):
    return render(request, "alerts/deliveries.html", deliveries_context())

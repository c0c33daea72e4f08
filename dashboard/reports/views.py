"""The campaigns list and a campaign's page (Supervisor, Manager), and the Managers'
actions on a campaign. Views stay thin: what a page shows is in pages.py, from the figures
of metrics.py and outbound.py and the refresher's summaries; what an action does is in
control.py."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from dashboard.accounts.roles import MANAGER, SUPERVISOR, has_role, role_required
from dashboard.shared.export import wants_csv

from . import control, exports
from .pages import campaign_context, campaigns_context


@role_required(SUPERVISOR)
def campaigns(request):
    if wants_csv(request):
        return exports.campaigns(campaigns_context()["rows"])
    return render(request, "reports/campaigns.html", campaigns_context())


@role_required(SUPERVISOR)
def campaign(request, campaign_id):
    context = campaign_context(campaign_id[:200], manage=has_role(request.user, MANAGER))
    if context["campaign"] is None and context["summary"]["data"] is not None:
        raise Http404("The service has no such campaign.")
    if wants_csv(request):
        return exports.campaign_day(context["campaign_id"], request.GET.get("table", "slots"))
    return render(request, "reports/campaign.html", context)


@require_POST
@role_required(MANAGER)
async def campaign_action(request, campaign_id, action):
    """Start or stop (`action` comes from the URL conf, never from the browser)."""
    record = await control.start_or_stop(await request.auser(), campaign_id[:200], action)
    tell = messages.success if record.outcome == record.DONE else messages.error
    tell(request, control.in_words(record))
    return redirect("campaign", campaign_id)


@require_POST
@role_required(MANAGER)
def booking_handled(request, campaign_id, booking_id):
    note = request.POST.get("note", "").strip()[:2000]
    refused = control.mark_handled(request.user, campaign_id[:200], booking_id[:200], note)
    if refused:
        messages.error(request, refused)
    else:
        messages.success(request, "The booking is marked as handled.")
    return redirect("campaign", campaign_id)

"""The campaigns list and a campaign's page (Supervisor, Manager). Views stay thin: what a
page shows is in pages.py, from the figures of metrics.py and the refresher's summaries."""

from django.http import Http404
from django.shortcuts import render

from dashboard.accounts.roles import SUPERVISOR, role_required
from dashboard.shared.export import wants_csv

from . import exports
from .pages import campaign_context, campaigns_context


@role_required(SUPERVISOR)
def campaigns(request):
    if wants_csv(request):
        return exports.campaigns(campaigns_context()["rows"])
    return render(request, "reports/campaigns.html", campaigns_context())


@role_required(SUPERVISOR)
def campaign(request, campaign_id):
    context = campaign_context(campaign_id[:200])
    if context["campaign"] is None and context["summary"]["data"] is not None:
        raise Http404("The service has no such campaign.")
    if wants_csv(request):
        return exports.campaign_day(context["campaign_id"], request.GET.get("table", "slots"))
    return render(request, "reports/campaign.html", context)

"""Each person's settings: the theme, their teams, where the service rings them to monitor
a call, and saved views of the live view's filters."""

from django.core.cache import cache
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from dashboard.shared.cache_keys import TEAMS_KEY

from .forms import MonitorDialForm, SavedViewForm, TeamsForm, ThemeForm
from .models import Preferences, SavedView, monitor_dial_of, teams_of, theme_of
from .roles import WALLBOARD, role_required

FROM_SCRIPT = "X-Theme-Request"  # static/js/theme.js: answered with a status, not a page


def _back(request, default="preferences"):
    """Where the form came from (a path of ours), or `default`."""
    nxt = request.POST.get("next", "")
    safe = url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()})
    return redirect(nxt if nxt and safe else default)


def _teams_form(request, data=None) -> TeamsForm:
    known = cache.get(TEAMS_KEY) or []
    return TeamsForm(data, known=known, chosen=teams_of(request.user))


def _page(request, theme_form=None, view_form=None, teams_form=None, status=200, dial_form=None):
    return render(
        request,
        "accounts/preferences.html",
        {
            "theme_form": theme_form or ThemeForm(initial={"theme": theme_of(request.user)}),
            "teams_form": teams_form or _teams_form(request),
            "dial_form": dial_form
            or MonitorDialForm(initial={"monitor_dial": monitor_dial_of(request.user)}),
            "view_form": view_form or SavedViewForm(user=request.user),
            "views": SavedView.objects.filter(user=request.user),
        },
        status=status,
    )


@role_required(WALLBOARD)
def preferences(request):
    return _page(request)


@require_POST
@role_required(WALLBOARD)
def set_theme(request):
    form = ThemeForm(request.POST)
    if not form.is_valid():
        if FROM_SCRIPT in request.headers:
            return HttpResponse(form.errors["theme"][0], status=400, content_type="text/plain")
        return _page(request, theme_form=form, status=400)
    Preferences.objects.update_or_create(
        user=request.user, defaults={"theme": form.cleaned_data["theme"]}
    )
    if FROM_SCRIPT in request.headers:
        return HttpResponse(status=204)
    return _back(request)


@require_POST
@role_required(WALLBOARD)
def set_monitor_dial(request):
    """Where the service rings this person to monitor a call (E.164 or sip:)."""
    form = MonitorDialForm(request.POST)
    if not form.is_valid():
        return _page(request, dial_form=form, status=400)
    Preferences.objects.update_or_create(
        user=request.user, defaults={"monitor_dial": form.cleaned_data["monitor_dial"]}
    )
    return _back(request)


@require_POST
@role_required(WALLBOARD)
def set_teams(request):
    """My floor: what the live view, its figures and the alerts show by default."""
    form = _teams_form(request, request.POST)
    if not form.is_valid():
        return _page(request, teams_form=form, status=400)
    Preferences.objects.update_or_create(
        user=request.user, defaults={"teams": sorted(form.cleaned_data["teams"])}
    )
    return _back(request)


@require_POST
@role_required(WALLBOARD)
def save_view(request):
    form = SavedViewForm(request.POST, user=request.user)
    if not form.is_valid():
        return _page(request, view_form=form, status=400)
    view = SavedView.objects.create(user=request.user, **form.cleaned_data)
    return redirect(view.url)


@require_POST
@role_required(WALLBOARD)
def delete_view(request, pk):
    get_object_or_404(SavedView, pk=pk, user=request.user).delete()
    return _back(request)

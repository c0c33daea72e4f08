"""The endpoints the pages' menus and session bar use (scripts may too): each answers the
page's fragment, or JSON with `Accept: application/json`. Thin: the rules are in
`policy`, the asking and recording in `control`."""

from asgiref.sync import sync_to_async
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from dashboard.accounts.forms import MonitorDialForm
from dashboard.accounts.models import Preferences, monitor_dial_of
from dashboard.accounts.roles import SUPERVISOR, role_required
from dashboard.upstream.on_request import service

from . import control, policy
from .control import Result

ID_LIMIT = 200


@require_POST
@role_required(SUPERVISOR)
async def monitor(request, call_id):
    user = await request.auser()
    can = await sync_to_async(policy.abilities)(user)
    refused = await _call_refusal(can, call_id)
    if refused:
        return _answer(request, Result(False, refused, 403))
    dial, problem = await sync_to_async(_dial)(user, request.POST.get("monitor_dial", ""))
    if problem:
        return _answer(request, Result(False, problem, 400, extra={"need_dial": True}))
    mode = request.POST.get("mode", "")
    return _answer(request, await control.monitor(user, call_id[:ID_LIMIT], mode, dial))


@require_POST
@role_required(SUPERVISOR)
async def hang_up(request, call_id):
    user = await request.auser()
    return _answer(request, await control.hang_up(user, call_id[:ID_LIMIT]))


@require_POST
@role_required(SUPERVISOR)
async def agent_state(request, agent_id):
    user = await request.auser()
    can = await sync_to_async(policy.abilities)(user)
    status = request.POST.get("status", "")
    team = await sync_to_async(policy.team_of)(agent_id)
    refused = policy.refusal(can, team=team, status=status)
    if refused:
        return _answer(request, Result(False, refused, 403))
    said = request.POST.get("reason_text", "").strip() or request.POST.get("reason", "")
    reason = " ".join(said.split())[:200] if status == "paused" else ""
    return _answer(request, await control.set_state(user, agent_id[:ID_LIMIT], status, reason))


async def _call_refusal(can, call_id: str) -> str:
    """A Supervisor with "my floor" set monitors their teams' calls only: the call's agent
    as the live floor last showed it, else as the service tells it."""
    if can is None or not can["teams"]:
        return policy.refusal(can, team=None) if can is None else ""
    agent_id, team = await sync_to_async(policy.call_of)(call_id)
    if not agent_id:
        try:
            call = await service().call(call_id[:ID_LIMIT])
        except Exception:  # the service's failure is said, never a 500
            return "The service could not tell whose call this is, so it cannot be checked."
        agent_id = call.agent_id if call else None
        team = await sync_to_async(policy.team_of)(agent_id) if agent_id else None
    return policy.refusal(can, team=team)


def _dial(user, given: str) -> tuple[str, str]:
    """The person's monitoring phone: the saved one, or the one given now (asked for at
    the first use), validated and saved. (dial, "") or ("", why not)."""
    if not given:
        saved = monitor_dial_of(user)
        if saved:
            return saved, ""
        return "", "Give the number or SIP address the service should ring you on first."
    form = MonitorDialForm({"monitor_dial": given})
    if not form.is_valid():
        return "", form.errors["monitor_dial"][0]
    dial = form.cleaned_data["monitor_dial"]
    Preferences.objects.update_or_create(user=user, defaults={"monitor_dial": dial})
    return dial, ""


def _answer(request, result: Result):
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse(result.json(), status=result.status)
    html = render_to_string("interventions/_result.html", {"result": result})
    return HttpResponse(html, status=result.status)

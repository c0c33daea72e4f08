"""The agent's page, the call's page, the recording's address, search and notes (Supervisor,
Manager). Views stay thin: what a page shows is in pages.py. Pages that ask the service are
async, so a slow service holds no thread; what touches the database runs in one."""

from asgiref.sync import sync_to_async
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_cookie

from dashboard.accounts.roles import SUPERVISOR, role_required
from dashboard.shared.export import wants_csv
from dashboard.upstream.fields import ID_LIMIT

from . import exports, pages
from .models import Note

NOTE_LIMIT = 4000


def not_found(request, what: str, some_id: str):
    context = {"what": what, "some_id": some_id}
    return render(request, "drilldown/not_found.html", context, status=404)


@role_required(SUPERVISOR)
async def agent(request, agent_id):
    context = await pages.agent_context(agent_id[:ID_LIMIT])
    if context is None:
        return await sync_to_async(not_found)(request, "agent", agent_id)
    if wants_csv(request):
        return exports.agent(request.GET.get("table", ""), context)
    return await sync_to_async(render)(request, "drilldown/agent.html", context)


@role_required(SUPERVISOR)
async def call(request, call_id):
    context = await pages.call_context(call_id[:ID_LIMIT])
    if context is None:
        return await sync_to_async(not_found)(request, "call", call_id)
    if wants_csv(request):
        return exports.call(request.GET.get("table", ""), context)
    return await sync_to_async(render)(request, "drilldown/call.html", context)


@require_POST
@never_cache
@role_required(SUPERVISOR)
async def call_recording(request, call_id):
    """The recording's short-lived address, asked of the service when a person presses play:
    handed to that page only, never stored, cached or logged."""
    found, problem = await pages.recording(call_id[:ID_LIMIT])
    if problem:
        return JsonResponse({"error": problem}, status=502)
    if found is None:
        return JsonResponse({"error": "The service has no recording of this call."}, status=404)
    expires = found.expires_at.isoformat() if found.expires_at else None
    return JsonResponse({"url": found.url, "expires_at": expires})


@vary_on_cookie
@role_required(SUPERVISOR)
async def search(request):
    q = " ".join(request.GET.get("q", "").split())[:ID_LIMIT]
    found = await sync_to_async(pages.search_held)(q) if q else {"agents": [], "calls": []}
    problem = ""
    if q and not (found["agents"] or found["calls"]) and " " not in q:
        fetched, problem = await pages.ask("Calls from the service", lambda r: r.call(q))
        found["calls"] = [fetched.call_id] if fetched else []
    hits = [("agent", a["id"]) for a in found["agents"]] + [("call", x) for x in found["calls"]]
    if len(hits) == 1:
        return redirect(*hits[0])
    context = {"q": q, **found, "problems": [problem] if problem else []}
    return await sync_to_async(render)(request, "drilldown/search.html", context)


@require_POST
@role_required(SUPERVISOR)
def add_note(request, agent_id):
    text = request.POST.get("text", "").strip()
    if not text:
        messages.error(request, "A note needs some text.")
    else:
        Note.objects.create(
            agent_id=agent_id[:ID_LIMIT], author=request.user, text=text[:NOTE_LIMIT]
        )
    return redirect(f"{reverse('agent', args=[agent_id])}#notes")


@require_POST
@role_required(SUPERVISOR)
def edit_note(request, agent_id, pk):
    """Only the note's author may change it; anyone else is told, and it stays as it was."""
    note = get_object_or_404(Note, pk=pk, agent_id=agent_id)
    text = request.POST.get("text", "").strip()
    if note.author_id != request.user.pk:
        raise PermissionDenied("Only its author may change a note.")
    if not text:
        messages.error(request, "A note needs some text.")
    else:
        note.text = text[:NOTE_LIMIT]
        note.save(update_fields=["text", "updated_at"])
    return redirect(f"{reverse('agent', args=[agent_id])}#note-{pk}")

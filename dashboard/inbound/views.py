"""The inbound pages (Supervisor, Manager): the queues, one queue's day, the voicemail
backlog, and marking a message handled. Views stay thin: what a page shows is in pages.py,
what marking handled asks of the service in control.py."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from dashboard.accounts.roles import SUPERVISOR, role_required
from dashboard.shared.export import wants_csv

from . import control, exports
from .pages import (
    QUEUE_FIGURES,
    VOICEMAIL_FIGURES,
    panels,
    queue_context,
    queues_context,
    voicemail_context,
)


@role_required(SUPERVISOR)
def queues(request):
    context = queues_context()
    if wants_csv(request):
        return exports.queues(context["rows"])
    return render(request, "inbound/queues.html", {**context, "panels": panels(QUEUE_FIGURES)})


@role_required(SUPERVISOR)
def queue(request, queue_id):
    context = queue_context(queue_id[:200])
    if context["row"] is None and context["at"] is not None:
        raise Http404("The service has no such queue.")
    if wants_csv(request):
        return exports.queue_day(context)
    return render(request, "inbound/queue.html", {**context, "panels": panels(QUEUE_FIGURES)})


@role_required(SUPERVISOR)
def voicemail(request):
    context = voicemail_context()
    if wants_csv(request):
        return exports.voicemail(context)
    context["panels"] = panels(VOICEMAIL_FIGURES)
    return render(request, "inbound/voicemail.html", context)


@require_POST
@role_required(SUPERVISOR)
async def handled(request, message_id):
    user = await request.auser()
    level, sentence = await control.mark_handled(user, message_id[:200])
    messages.add_message(request, level, sentence)
    return redirect("voicemail")

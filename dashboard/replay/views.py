"""The floor replay's page and its frames: the live view's floor at a chosen moment."""

from asgiref.sync import async_to_sync
from django.http import HttpResponseBadRequest, JsonResponse
from django.shortcuts import render

from dashboard.accounts.roles import SUPERVISOR, role_required
from dashboard.live.render import STATE_LOOK

from . import reader
from .pages import (
    BadMoment,
    asked,
    before_recording,
    day_span,
    days_of,
    frame,
    history_frame,
    history_span,
    requested,
)


def rebuilt(request, span):
    """The frame and slider range of a moment before the recording, from the service's
    history; None when the moment is recorded, or the history could not be read."""
    wanted = requested(request)
    if not before_recording(wanted, span):
        return None
    shown = async_to_sync(history_frame)(wanted)
    return shown and (shown, *history_span(wanted, span), wanted)


def refused(bad: BadMoment):
    return HttpResponseBadRequest(str(bad), content_type="text/plain; charset=utf-8")


@role_required(SUPERVISOR)
def page(request):
    span = reader.span()
    try:
        when = asked(request, span)
        from_history = rebuilt(request, span)
    except BadMoment as bad:
        return refused(bad)
    context = {"recorded": span is not None, "states": [(k, v) for k, (_, v) in STATE_LOOK.items()]}
    if from_history or span is not None:
        shown, low, high, when = from_history or (frame(when), *day_span(when, span), when)
        context.update(
            recorded=True,
            shown=shown,
            floor=shown["parts"],
            team_choices=shown["teams"],
            day=low.isoformat(),
            days=days_of(span) if span else [(low.isoformat(), shown["label"][:10])],
            low=int(low.timestamp()),
            high=int(high.timestamp()),
            value=int(when.timestamp()),
        )
    return render(request, "replay/page.html", context)


@role_required(SUPERVISOR)
def moment(request):
    """One frame, for the page's script: the parts joined as the live pushes are."""
    span = reader.span()
    try:
        when = asked(request, span)
        from_history = rebuilt(request, span)
    except BadMoment as bad:
        return refused(bad)
    if from_history:
        shown, low, high, _ = from_history
    elif when is None:
        return JsonResponse({"error": "Nothing recorded yet."}, status=404)
    else:
        shown, (low, high) = frame(when), day_span(when, span)
    shown["html"] = "".join(shown.pop("parts").values())
    shown.update(low=int(low.timestamp()), high=int(high.timestamp()))
    return JsonResponse(shown)

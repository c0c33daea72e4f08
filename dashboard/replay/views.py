"""The floor replay's page and its frames: the live view's floor at a chosen moment."""

from django.http import HttpResponseBadRequest, JsonResponse
from django.shortcuts import render

from dashboard.accounts.roles import SUPERVISOR, role_required
from dashboard.live.render import STATE_LOOK

from . import reader
from .pages import BadMoment, asked, day_span, days_of, frame


def refused(bad: BadMoment):
    return HttpResponseBadRequest(str(bad), content_type="text/plain; charset=utf-8")


@role_required(SUPERVISOR)
def page(request):
    span = reader.span()
    try:
        when = asked(request, span)
    except BadMoment as bad:
        return refused(bad)
    context = {"recorded": span is not None, "states": [(k, v) for k, (_, v) in STATE_LOOK.items()]}
    if span is not None:
        shown = frame(when)
        low, high = day_span(when, span)
        context.update(
            shown=shown,
            floor=shown["parts"],
            team_choices=shown["teams"],
            day=low.isoformat(),
            days=days_of(span),
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
    except BadMoment as bad:
        return refused(bad)
    if when is None:
        return JsonResponse({"error": "Nothing recorded yet."}, status=404)
    shown = frame(when)
    low, high = day_span(when, span)
    shown["html"] = "".join(shown.pop("parts").values())
    shown.update(low=int(low.timestamp()), high=int(high.timestamp()))
    return JsonResponse(shown)

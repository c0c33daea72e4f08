"""Today against its normal, and a day's summary (Supervisor), which a Manager may send to
the alert chat webhook at once. What the pages show is in pages.py and summary.py."""

from datetime import date

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from dashboard.accounts.roles import MANAGER, SUPERVISOR, role_required

from .pages import filling_of, filling_past_of, normal_context
from .summary import SUMMARY, day_summary, kept_days, payload


@role_required(SUPERVISOR)
def today(request):
    return render(request, "normal/today.html", {**normal_context(), "kept": kept_days()})


def kept_day(request, day: str):
    """(the date, the days kept, None) for a day kept; else (None, the days kept, a page
    saying why not: 400 for what is not a date, 404 for a day not kept)."""
    try:
        when = date.fromisoformat(day)
    except ValueError:
        sentence = f"“{day}” is not a date: write it as YYYY-MM-DD, e.g. 2026-11-24."
        return None, [], render(request, "normal/no_day.html", {"sentence": sentence}, status=400)
    kept = kept_days()
    if when not in kept:
        sentence = f"The dashboard keeps no 15-minute slots of {when:%a %d %b %Y}."
        context = {"sentence": sentence, "kept": kept}
        return None, kept, render(request, "normal/no_day.html", context, status=404)
    return when, kept, None


@role_required(SUPERVISOR)
def day(request, day):
    """A day against its normal, on one printable page; a day not kept says so."""
    when, kept, refused = kept_day(request, day)
    if refused:
        return refused
    context = {
        "summary": day_summary(when),
        "kept": kept,
        "webhook": bool(settings.ALERT_WEBHOOK_URL),
        "filling_pct": filling_of(when),
        "filling_past_pct": filling_past_of(when),
    }
    return render(request, "normal/day.html", context)


@role_required(MANAGER)  # first: a signed-out GET goes to the sign-in page, not a 405
@require_POST
async def send(request, day, post):
    """The day's summary to the alert chat webhook now (`post`: the alerts' one-off
    `post_now`, handed in by the URL conf); back to the day's page with what happened."""
    when, _, refused = await database_sync_to_async(kept_day)(request, day)
    if refused:
        return refused
    # A summary of part of the morning, or against part of the normal, would read as whole.
    today, past = await database_sync_to_async(lambda: (filling_of(when), filling_past_of(when)))()
    if today is not None or past is not None:
        what = (
            f"Today is still being read from the service's history ({today}%): the summary "
            "can be sent once it is read."
            if today is not None
            else "The past weeks its normal is made of are still being read from the "
            f"service's history ({past}%): the summary can be sent once they are read."
        )
        messages.error(request, what)
        return redirect("normal-day", day)
    summary = await database_sync_to_async(day_summary, thread_sensitive=False)(when)
    sent = await post(SUMMARY, payload(summary))
    if sent is None:
        messages.error(
            request,
            "No alert chat webhook is configured (ALERT_WEBHOOK_URL), so the summary was not sent.",
        )
    elif sent:
        messages.success(request, f"The summary of {when:%a %d %b %Y} was sent to the chat.")
    else:
        messages.error(
            request,
            f"The chat webhook did not take the summary of {when:%a %d %b %Y}; the alerts' "
            "delivery log says what it answered.",
        )
    return redirect("normal-day", day)

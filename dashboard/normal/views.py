"""Today against its normal, and a day's summary (Supervisor). What the pages show is in
pages.py and summary.py."""

from datetime import date

from django.shortcuts import render

from dashboard.accounts.roles import SUPERVISOR, role_required

from .pages import normal_context
from .summary import day_summary, kept_days


@role_required(SUPERVISOR)
def today(request):
    return render(request, "normal/today.html", {**normal_context(), "kept": kept_days()})


@role_required(SUPERVISOR)
def day(request, day):
    """A day against its normal, on one printable page; a day not kept says so."""
    try:
        when = date.fromisoformat(day)
    except ValueError:
        sentence = f"“{day}” is not a date: write it as YYYY-MM-DD, e.g. 2026-11-24."
        return render(request, "normal/no_day.html", {"sentence": sentence}, status=400)
    kept = kept_days()
    if when not in kept:
        sentence = f"The dashboard keeps no 15-minute slots of {when:%a %d %b %Y}."
        return render(
            request, "normal/no_day.html", {"sentence": sentence, "kept": kept}, status=404
        )
    return render(request, "normal/day.html", {"summary": day_summary(when), "kept": kept})

"""The floor replay's page context: a moment asked for, its frame and the slider's days."""

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format

from . import reader


class BadMoment(ValueError):
    """`?at=` has the shape of a moment that does not exist (month 99, offset +99:00)."""


def asked(request, span) -> datetime | None:
    """The moment in `?at=` (ISO 8601; the organisation's zone when it has none), kept
    within what was recorded; the last moment recorded without one."""
    if span is None:
        return None
    first, last = span
    try:
        when = parse_datetime(request.GET.get("at", "") or "")
    except ValueError:
        raise BadMoment("?at= is not a moment that exists: use YYYY-MM-DDTHH:MM:SS") from None
    if when is None:
        return last
    if when.tzinfo is None:
        when = when.replace(tzinfo=ZoneInfo(settings.TIME_ZONE))
    return min(max(when, first), last)


def frame(when: datetime) -> dict:
    """What the page shows of a moment: the floor's parts and the way around it."""
    moment = reader.state_at(when)
    previous, following = reader.previous_change(when), reader.next_change(when)
    note = ""
    if moment.gap is not None:
        note = (
            f"Events are missing from {label(moment.gap.start)} to {label(moment.gap.end)} "
            f"({moment.gap.reason}): the floor is shown as it was before them."
        )
    return {
        "at": when.isoformat(),
        "label": label(when),
        "parts": reader.parts_at(moment) if moment.state else {},
        "teams": sorted({a.team for a in moment.state.agents.values() if a.team})
        if moment.state
        else [],
        "previous": previous and previous.isoformat(),
        "next": following and following.isoformat(),
        "note": note,
    }


def label(when: datetime) -> str:
    local = when.astimezone(ZoneInfo(settings.TIME_ZONE))
    return f"{date_format(local, 'D j M')} {local:%H:%M:%S}"


def days_of(span) -> list[tuple[str, str]]:
    """(the ISO start of a kept day with recordings, its label), newest first."""
    tz = ZoneInfo(settings.TIME_ZONE)
    first, last = (x.astimezone(tz).date() for x in span)
    days, day = [], last
    while day >= first:
        start = max(datetime.combine(day, time.min, tz), span[0])
        days.append((start.isoformat(), date_format(day, "l j F")))
        day -= timedelta(days=1)
    return days


def day_span(when: datetime, span) -> tuple[datetime, datetime]:
    """The slider's range: the recorded part of the day of `when`."""
    tz = ZoneInfo(settings.TIME_ZONE)
    start = datetime.combine(when.astimezone(tz).date(), time.min, tz)
    return max(start, span[0]), min(start + timedelta(days=1) - timedelta(seconds=1), span[1])

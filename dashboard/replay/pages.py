"""The floor replay's page context: a moment asked for, its frame and the slider's days."""

import logging
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format

from dashboard.upstream.errors import ContractError, UpstreamError

from . import history, reader

log = logging.getLogger("dashboard.replay")


class BadMoment(ValueError):
    """`?at=` has the shape of a moment that does not exist (month 99, offset +99:00)."""


def asked(request, span) -> datetime | None:
    """The moment in `?at=` (ISO 8601; the organisation's zone when it has none), kept
    within what was recorded; the last moment recorded without one."""
    if span is None:
        return None
    first, last = span
    when = requested(request)
    if when is None:
        return last
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
    """The slider's range: the day of `when` from its start (a moment before the recording
    is rebuilt from the service's history) to the end of what was recorded of it."""
    tz = ZoneInfo(settings.TIME_ZONE)
    start = datetime.combine(when.astimezone(tz).date(), time.min, tz)
    return start, min(start + timedelta(days=1) - timedelta(seconds=1), span[1])


def requested(request) -> datetime | None:
    """The moment in `?at=` as asked (not kept within the recording), or None; BadMoment
    for one that does not exist."""
    try:
        when = parse_datetime(request.GET.get("at", "") or "")
    except ValueError:
        raise BadMoment("?at= is not a moment that exists: use YYYY-MM-DDTHH:MM:SS") from None
    if when is not None and when.tzinfo is None:
        when = when.replace(tzinfo=ZoneInfo(settings.TIME_ZONE))
    return when


def before_recording(when: datetime | None, span) -> bool:
    """Whether `when` is a past moment the recording does not reach (the history may)."""
    return when is not None and when <= timezone.now() and (span is None or when < span[0])


async def history_frame(when: datetime) -> dict | None:
    """A moment before the recording, rebuilt from the service's history (None: the
    service could not give it, or its history does not reach that moment; the recorded
    frames are shown instead)."""
    try:
        state = await history.floor_at(when)
    except (UpstreamError, ContractError) as exc:
        log.info("replay: the service's history could not be read: %s", exc)
        return None
    if not state.agents:  # no agent held a state then, as far as the history goes
        return None
    return {
        "at": when.isoformat(),
        "label": label(when),
        "parts": history.parts(state),
        "teams": sorted({a.team for a in state.agents.values() if a.team}),
        "previous": None,
        "next": None,
        "note": history.NOTE,
        "rebuilt": True,
    }


def history_span(when: datetime, span) -> tuple[datetime, datetime]:
    """The slider's range for a rebuilt moment: from its day's start to the recording's
    end (or now)."""
    tz = ZoneInfo(settings.TIME_ZONE)
    start = datetime.combine(when.astimezone(tz).date(), time.min, tz)
    return start, span[1] if span else timezone.now()

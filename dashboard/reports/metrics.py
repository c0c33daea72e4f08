"""The outbound figures and the intraday series, computed here and nowhere else.

Formulas, windows and sources are written down in docs/metrics.md. The floor's per-slot
figures reuse the live formulas of dashboard/live/state.py, so a 15-minute service level
means exactly what the day's does.
"""

from dataclasses import fields
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count

from dashboard.live.state import SLOT_S, Counts, aht_s, service_level_pct, slot_of
from dashboard.quality.models import CompletedCall
from dashboard.shared.cache_keys import QUEUE_SL_SLOTS_KEY
from dashboard.shared.charts import chart, on_day, week_before, with_last_week, zone
from dashboard.shared.filling import filling_past_pct, filling_past_sentence, filling_pct
from dashboard.shared.percent import pct
from dashboard.upstream import contract as c

from .filling import noted
from .models import CampaignSlot, FloorSlot

SLOT = timedelta(seconds=SLOT_S)
COUNTERS = [f.name for f in fields(Counts)]


def connect_rate_pct(connected: int, dialed: int) -> float | None:
    """Connected calls ÷ dial attempts."""
    return pct(connected, dialed)


def conversion_pct(booked: int, connected: int) -> float | None:
    """Appointments booked ÷ connected calls."""
    return pct(booked, connected)


def progress_pct(dialed: int, total: int) -> float | None:
    """Contacts dialed ÷ contacts in the campaign."""
    return pct(min(dialed, total), total)


def campaign_row(x: c.Campaign) -> dict:
    return {
        "id": x.id,
        "name": x.name,
        "status": x.status,
        "dial_mode": x.dial_mode,
        "total": x.total_contacts,
        "dialed": x.dialed_contacts,
        "connected": x.connected_calls,
        "booked": x.appointments_booked,
        "started_at": x.started_at,
        "progress_pct": progress_pct(x.dialed_contacts, x.total_contacts),
        "connect_rate_pct": connect_rate_pct(x.connected_calls, x.dialed_contacts),
        "conversion_pct": conversion_pct(x.appointments_booked, x.connected_calls),
    }


# ---- Intraday series, as the JSON the charts draw ------------------------------------------
def _slots(first: datetime | None, last: datetime) -> list[datetime]:
    """Every slot from `first` to `last`."""
    if first is None:
        return []
    out, at = [], first
    while at <= last:
        out.append(at)
        at += SLOT
    return out


def _day(model, since: datetime, now: datetime, **match) -> tuple[list, list, list, str]:
    """Today's slots of `model` and the same weekday last week's, on one axis: the slots
    from the first with data, today's or last week's, to the current one or last week's
    last, whichever is later (last week's shows what the rest of the day looked like).
    Today's rows (None: no row), last week's, and the weekday's short name."""
    today = since.astimezone(zone()).date()
    rows = {r.start: r for r in model.objects.filter(start__gte=since, start__lte=now, **match)}
    week_from, week_to = week_before(today)
    before = {
        slot_of(on_day(r.start, today)): r
        for r in model.objects.filter(start__gte=week_from, start__lt=week_to, **match)
    }
    current = slot_of(now)
    xs = _slots(min([*rows, *before], default=None), max([current, *before]))
    return xs, [rows.get(x) for x in xs], [before.get(x) for x in xs], f"{week_from:%a}"


def _counts(xs, rows, now: datetime, field: str) -> list:
    """A counter per slot: 0 for a past slot with no row, None for the slots to come."""
    current = slot_of(now)
    return [
        getattr(r, field) if r else (0 if x <= current else None)
        for x, r in zip(xs, rows, strict=True)
    ]


def _of(rows, field: str) -> list:
    return [getattr(r, field) if r else None for r in rows]


def floor_charts(since: datetime, now: datetime) -> dict:
    """Today per 15 minutes: calls, and service level with AHT; the same weekday last week
    dashed. Keyed by the id the page gives each chart's data."""
    xs, got, old, weekday = _day(FloorSlot, since, now)
    past = filling_past_pct()
    within = settings.SERVICE_LEVEL_THRESHOLD_S
    today = _total(got, Counts())
    then = _total([r for x, r in zip(xs, old, strict=True) if x <= now], None)
    calls = [
        {
            "label": "Calls started",
            "scale": "calls",
            "kind": "bars",
            "values": _counts(xs, got, now, "calls"),
            "figure": "offered",
        },
        {
            "label": "Calls ended",
            "scale": "calls",
            "values": _counts(xs, got, now, "completed"),
            "figure": "completed",
        },
    ]
    own = cache.get(QUEUE_SL_SLOTS_KEY)  # the queues' own targets, where there are queues
    if own is None:
        sl_label = f"Service level % (answered ≤ {within} s)"
        sl_figure = "service_level"  # the floor's, as the normal has it
        sl_today = [service_level_pct(r) if r else None for r in got]
        sl_then = [service_level_pct(r) if r else None for r in old]
    else:
        sl_label = "Service level % (each queue's own target)"
        if own.get("since"):  # the calls before the first read are in no slot
            sl_label += f" from {own['since'].astimezone(zone()):%H:%M}"
        sl_figure = None
        sl_today = [own["today"].get(x.isoformat()) for x in xs]
        day = since.astimezone(zone()).date()
        then_by_slot = {
            slot_of(on_day(datetime.fromisoformat(k), day)): v for k, v in own["last_week"].items()
        }
        sl_then = [then_by_slot.get(x) for x in xs]
    service = [
        {"label": sl_label, "scale": "%", "values": sl_today, "figure": sl_figure},
        {
            "label": "AHT (s)",
            "scale": "s",
            "values": [aht_s(r) if r else None for r in got],
            "figure": "aht",
        },
    ]

    def answered(x: Counts) -> str:
        handle = f"{round(x.handle_s)} s handle time over {x.handled} agent-handled calls"
        if own is not None:
            return handle
        return (
            f"{x.inbound_in_sl} of {x.inbound_answered} inbound calls answered within "
            f"{within} s; {handle}"
        )

    own_line = (
        []
        if own is None
        else [
            "Service level per 15 minutes: each queue's own service level (answered within "
            "its own target ÷ answered + abandoned − abandoned under 5 s, open minutes only), "
            "weighted by the calls it was offered while open; from GET /inbound/queues/{id}/"
            f"stats (slots with calls: {sum(v is not None for v in sl_today)})"
        ]
    )

    charts = {
        "chart-calls": chart(
            xs,
            with_last_week(calls, [_of(old, "calls"), _of(old, "completed")], weekday),
            SLOT_S,
            "chart_calls",
            [
                f"{today.calls} calls started and {today.completed} ended today "
                f"(slots with data: {sum(r is not None for r in got)})",
                _last_week_line(
                    weekday, then, lambda x: f"{x.calls} started, {x.completed} ended", past
                ),
            ],
        ),
        "chart-service": chart(
            xs,
            with_last_week(
                service,
                [sl_then, [aht_s(r) if r else None for r in old]],
                weekday,
            ),
            SLOT_S,
            "chart_service",
            [*own_line, answered(today), _last_week_line(weekday, then, answered, past)],
        ),
    }
    return noted(charts, filling_pct())


def _total(rows, empty):
    """The counters of `rows` added up (`empty` when there are none)."""
    rows = [r for r in rows if r is not None]
    if not rows:
        return empty
    return Counts(**{name: sum(getattr(r, name) for r in rows) for name in COUNTERS})


def _last_week_line(weekday: str, then, show, past: int | None) -> str:
    """Last week's counts up to the same time of day (whole slots); while the past weeks are
    read from the service's history (`past`, their progress), that they are."""
    if past is not None:
        return filling_past_sentence(past)
    return f"Last {weekday} by this time (dashed): " + ("no data" if then is None else show(then))


def campaign_chart(campaign_id: str, since: datetime, now: datetime) -> dict:
    """A campaign's dial attempts, connects and appointments per 15 minutes, today; the
    same weekday last week dashed."""
    xs, got, old, weekday = _day(CampaignSlot, since, now, campaign_id=campaign_id)
    names = {"dialed": "Dial attempts", "connected": "Connects", "booked": "Appointments"}
    series = [
        {"label": label, "scale": "calls", "values": _counts(xs, got, now, name)}
        for name, label in names.items()
    ]
    series[0]["kind"] = "bars"
    series[0]["figure"] = "dialed"  # the normal's overlay bands it (normal/on_pages.py)
    grown = {name: sum(getattr(r, name) for r in got if r) for name in names}
    return chart(
        xs,
        with_last_week(series, [_of(old, name) for name in names], weekday),
        SLOT_S,
        "chart_campaign",
        [
            f"{grown['dialed']} dial attempts, {grown['connected']} connects and "
            f"{grown['booked']} appointments added today "
            f"(slots with data: {sum(r is not None for r in got)})"
        ],
    )


def outcome_mix(campaign_id: str, since: datetime) -> list[dict]:
    """Completed calls of the campaign by outcome, today, with each one's share."""
    rows = list(
        CompletedCall.objects.filter(campaign_id=campaign_id, completed_at__gte=since)
        .values("outcome")
        .annotate(n=Count("id"))
        .order_by("-n", "outcome")
    )
    total = sum(r["n"] for r in rows)
    return [{**r, "pct": pct(r["n"], total), "total": total} for r in rows]

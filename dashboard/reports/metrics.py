"""The outbound figures and the intraday series, computed here and nowhere else.

Formulas, windows and sources are written down in docs/metrics.md. The floor's per-slot
figures reuse the live formulas of dashboard/live/state.py, so a 15-minute service level
means exactly what the day's does.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count

from dashboard.live.state import SLOT_S, aht_s, service_level_pct, slot_of
from dashboard.quality.models import CompletedCall
from dashboard.shared.charts import chart
from dashboard.shared.percent import pct
from dashboard.upstream import contract as c

from .models import CampaignSlot, FloorSlot

SLOT = timedelta(seconds=SLOT_S)


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
def _slots(first: datetime | None, now: datetime) -> list[datetime]:
    """Every slot from the first with data to the current one."""
    if first is None:
        return []
    out, at, last = [], first, slot_of(now)
    while at <= last:
        out.append(at)
        at += SLOT
    return out


def floor_charts(since: datetime, now: datetime) -> dict:
    """Today per 15 minutes: calls, and service level with AHT. Keyed by the id the page
    gives each chart's data."""
    rows = {r.start: r for r in FloorSlot.objects.filter(start__gte=since, start__lte=now)}
    xs = _slots(min(rows, default=None), now)
    got = [rows.get(x) for x in xs]
    sl_label = f"Service level % (answered ≤ {settings.SERVICE_LEVEL_THRESHOLD_S} s)"
    return {
        "chart-calls": chart(
            xs,
            [
                {
                    "label": "Calls started",
                    "scale": "calls",
                    "kind": "bars",
                    "values": [r.calls if r else 0 for r in got],
                },
                {
                    "label": "Calls ended",
                    "scale": "calls",
                    "values": [r.completed if r else 0 for r in got],
                },
            ],
            SLOT_S,
        ),
        "chart-service": chart(
            xs,
            [
                {
                    "label": sl_label,
                    "scale": "%",
                    "values": [service_level_pct(r) if r else None for r in got],
                },
                {
                    "label": "AHT (s)",
                    "scale": "s",
                    "values": [aht_s(r) if r else None for r in got],
                },
            ],
            SLOT_S,
        ),
    }


def campaign_chart(campaign_id: str, since: datetime, now: datetime) -> dict:
    """A campaign's dial attempts, connects and appointments per 15 minutes, today."""
    rows = {
        r.start: r
        for r in CampaignSlot.objects.filter(
            campaign_id=campaign_id, start__gte=since, start__lte=now
        )
    }
    xs = _slots(min(rows, default=None), now)
    got = [rows.get(x) for x in xs]
    return chart(
        xs,
        [
            {
                "label": "Dial attempts",
                "scale": "calls",
                "kind": "bars",
                "values": [r.dialed if r else 0 for r in got],
            },
            {
                "label": "Connects",
                "scale": "calls",
                "values": [r.connected if r else 0 for r in got],
            },
            {
                "label": "Appointments",
                "scale": "calls",
                "values": [r.booked if r else 0 for r in got],
            },
        ],
        SLOT_S,
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

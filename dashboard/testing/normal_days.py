"""Days of known shape for the normal and what changed: 15-minute slots of the floor
(`FloorSlot`), of each inbound queue (`QueueSlot`) and of a campaign (`CampaignSlot`, and
the calls its agents handled, `CompletedCall`) on
the same weekday of the last four weeks (alike, give or take a call) and today up to a
time, where a shape may take over from a known hour: a queue surge, a team pausing.

Written through the ORM (`write`, a test's own database) or into a served dashboard's
SQLite file (`write_sqlite`, before it starts)."""

import sqlite3
from datetime import UTC, datetime, timedelta

from dashboard.inbound.models import QueueSlot
from dashboard.quality.models import CompletedCall
from dashboard.reports.models import CampaignSlot, FloorSlot

SALES, CARE = "q-sales", "q-care"
PLANS = {SALES: {"name": "Sales", "goal_pct": 70.0}, CARE: {"name": "Care", "goal_pct": 80.0}}
WOBBLE = (0, -2, 2, 1, -1)  # calls per slot, by weeks ago: no two weeks quite alike


def slot(
    calls=40, agents_s=9000.0, busy=0.8, sl=(18, 20), aht=300, sales=None, k1=(4, 300)
) -> dict:
    """One slot: `calls` offered and handled (`sales` of them, by default half, to the
    Sales queue, the rest to Care), `agents_s` of agents' time signed in of which `busy`
    on calls, service level `sl` (in time, answered) on the floor and in each queue;
    campaign k1's agents handled `k1` (calls, talk seconds each) of them."""
    sales = calls // 2 if sales is None else sales
    within, answered = sl
    return {
        "floor": {
            "calls": calls,
            "completed": calls,
            "handled": calls,
            "handle_s": calls * aht,
            "inbound_answered": answered,
            "inbound_in_sl": within,
            "busy_s": agents_s * busy,
            "available_s": agents_s * (1 - busy),
        },
        "queues": {
            SALES: {"offered": sales, "answered": answered, "within_target": within},
            CARE: {"offered": calls - sales, "answered": answered, "within_target": within},
        },
        "dialed": calls // 2,
        "k1": k1,
    }


def midnight(zone, now: datetime, weeks_ago: int) -> datetime:
    day = now.astimezone(zone).date() - timedelta(days=7 * weeks_ago)
    return datetime.combine(day, datetime.min.time(), zone)


def rows(zone, now: datetime, weeks=(1, 2, 3, 4), until=None, shape=None) -> list[tuple]:
    """(table, row) of the weeks' days and of today to `until` (a wall-clock hour; none:
    no today); `shape(hour, weeks_ago)` gives a slot of another shape (None: the normal
    one), e.g. today's from a time on."""
    out = []
    for weeks_ago in (*weeks, *([0] if until is not None else [])):
        start = midnight(zone, now, weeks_ago)
        for n in range(96):
            hour = n / 4
            if weeks_ago == 0 and hour >= until:
                break
            at = start + timedelta(minutes=15 * n)
            made = (shape and shape(hour, weeks_ago)) or slot(40 + WOBBLE[weeks_ago])
            out.append(("reports_floorslot", {"start": at, **made["floor"]}))
            out.append(
                (
                    "reports_campaignslot",
                    {"campaign_id": "k1", "start": at, "dialed": made["dialed"]},
                )
            )
            handled, talk_s = made["k1"]
            for n in range(handled):
                call = {
                    "call_id": f"k1-{at:%Y%m%d%H%M}-{n}",
                    "agent_id": f"a{n}",
                    "campaign_id": "k1",
                    "outcome": "completed",
                    "duration_s": talk_s,
                    "completed_at": at + timedelta(minutes=7),
                }
                out.append(("quality_completedcall", call))
            for queue, counts in made["queues"].items():
                row = {"queue_id": queue, "start": at, "open": True, **counts}
                out.append(("inbound_queueslot", row))
    return out


def write(made: list[tuple]):
    """Into the test's database, through the models."""
    models = {
        "reports_floorslot": FloorSlot,
        "reports_campaignslot": CampaignSlot,
        "inbound_queueslot": QueueSlot,
        "quality_completedcall": CompletedCall,
    }
    for table, model in models.items():
        model.objects.bulk_create([model(**row) for name, row in made if name == table])


def write_sqlite(path, made: list[tuple]):
    """Into a dashboard's SQLite file (migrated, not yet served), in UTC as Django keeps it."""
    with sqlite3.connect(path) as db:
        for table, row in made:
            row = {k: _stored(v) for k, v in row.items()}
            if table == "inbound_queueslot":
                row = {"abandoned": 0, "short_abandoned": 0, **row}
            if table == "reports_floorslot":
                row = {"ai_completed": 0, **row}
            if table == "reports_campaignslot":
                row = {"connected": 0, "booked": 0, **row}
            if table == "quality_completedcall":
                row = {"transcript": "", **row}
            names = ", ".join(row)
            marks = ", ".join("?" * len(row))
            db.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", list(row.values()))


def _stored(value):
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    return value

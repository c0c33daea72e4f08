"""What the inbound pages show, read from the board the bridge keeps in the cache
(board.py): the queues, one queue's day and ring group (its members apart: ring.py), and
the voicemail backlog. The views and the pushes render the same contexts."""

from django.core.cache import cache

from dashboard.shared.figures import explain

from . import ring
from .board import BOARD_KEY
from .handled import handled, next_version, without
from .words import hours_text, minutes

QUEUE_FIGURES = ("queue_service_level", "queue_calls", "queue_wait", "ring_available")
VOICEMAIL_FIGURES = ("voicemail_waiting", "voicemail_handled")
EMPTY = {
    "at": None,
    "changed_at": None,
    "queues": [],
    "floor_sl_pct": None,
    "slots": {},
    "before": {},
    "voicemail": None,
    "notes": {},
}


def board() -> dict:
    return cache.get(BOARD_KEY) or EMPTY


def shown(row: dict) -> dict:
    return {**row, "hours": hours_text(row), "longest": minutes(row["longest_wait_s"])}


def panels(keys) -> list[dict]:
    """The explain panels of the figures a page shows (outside its pushed body)."""
    return [explain(key) for key in keys]


def queues_context() -> dict:
    b = board()
    return {
        "rows": [shown(r) for r in b["queues"]],
        "floor_sl_pct": b["floor_sl_pct"],
        "notes": b["notes"],
        "changed_at": b.get("changed_at"),
    }


def queue_context(queue_id: str) -> dict:
    b = board()
    row = next((r for r in b["queues"] if r["id"] == queue_id), None)
    return {
        "queue_id": queue_id,
        "row": shown(row) if row else None,
        "slots": b["slots"].get(queue_id, []),
        "before": b.get("before", {}).get(queue_id),
        "members": ring.members(queue_id) if row else [],
        "notes": b["notes"],
        "at": b["at"],
    }


def voicemail_context() -> dict:
    """The backlog's body, numbered before the board is read (handled.py)."""
    version = next_version()
    b = board()
    part = b["voicemail"]
    if part is None:
        return {"voicemail": None, "notes": b["notes"], "at": b["at"], "version": version}
    part = without(part, handled([m["id"] for m in part["messages"]]))
    messages = [{**m, "age": minutes(m["age_s"])} for m in part["messages"]]
    return {
        "voicemail": {**part, "messages": messages},
        "oldest": minutes(part["oldest_s"]) if part["oldest_s"] is not None else None,
        "median_handle": minutes(part["median_handle_s"]),
        "notes": b["notes"],
        "at": b["at"],
        "version": version,
    }

"""The inbound pages' tables as CSV downloads (dashboard/shared/export.py)."""

from dashboard.shared.export import cell, csv_response


def queues(rows: list[dict]):
    header = [
        "Queue id",
        "Queue",
        "Open",
        "Hours",
        "Waiting",
        "Longest wait (s)",
        "Ring group agents available",
        "Offered",
        "Answered",
        "Abandoned (5 s or more)",
        "Short abandons (under 5 s)",
        "Average wait (s)",
        "To voicemail",
        "Service level % (within target ÷ answered + abandoned − short, open minutes)",
        "Target (s)",
        "Goal %",
    ]
    keys = ["id", "name", "open", "hours", "waiting", "longest_wait_s", "ring_available"]
    keys += ["offered", "answered", "abandoned", "short_abandoned", "average_wait_s"]
    keys += ["to_voicemail", "sl_pct", "target_s", "goal_pct"]
    return csv_response("queues", header, ([r[k] for k in keys] for r in rows))


def queue_day(context: dict):
    header = ["Slot start", "Offered", "Answered", "Abandoned", "Short abandons"]
    header += ["Offered while closed", "Service level % (open minutes)"]
    keys = ["start", "offered", "answered", "abandoned", "short_abandoned", "closed_offered"]
    rows = [[s[k] for k in keys] + [s["sl_pct"]] for s in context["slots"]]
    if b := context.get("before"):  # the day before the first read, in no slot
        rows.insert(0, [f"before {cell(b['until'])}", *(b[k] for k in keys[1:5]), "", b["sl_pct"]])
    return csv_response(f"queue-{context['queue_id'][:40]}", header, rows)


def voicemail(context: dict):
    header = ["Message id", "Queue", "Caller", "Phone (last four)", "Received", "Age (s)"]
    header += ["Duration (s)", "Transcript"]
    keys = ["id", "queue", "caller", "phone", "received_at", "age_s", "duration_s", "transcript"]
    part = context["voicemail"] or {"messages": []}
    return csv_response("voicemail", header, ([m[k] for k in keys] for m in part["messages"]))

"""A day against its normal on one page: the time each figure ran above or below its band
and the hours it did, the biggest changes with their causes, and the best and worst queues
(service level against each queue's own goal) and campaigns (dials against their own
normal). For any day kept, on demand (`/normal/day/<date>/`), and at the end of each day
through the alert chat webhook (the composition root sends its `payload`; a Manager may send
it at once from its page)."""

from datetime import UTC, date, datetime, timedelta

from django.conf import settings
from django.urls import reverse

from dashboard.inbound.board import service_level
from dashboard.inbound.pages import board
from dashboard.live.state import SLOT, slot_of
from dashboard.reports.models import FloorSlot
from dashboard.shared import summaries
from dashboard.shared.charts import zone

from .floor import day_normal, midnight
from .method import MIN_WEEKS
from .pages import shown
from .panel import row, runs_of
from .queue_slots import queue_days, queue_offered

SUMMARY = "summary"  # the chat webhook's transition, which its delivery log shows
BIGGEST = 5  # changes listed
RANKED = 3  # best and worst queues and campaigns


def kept_days(limit: int = 28) -> list[date]:
    """The days the dashboard holds 15-minute slots of, newest first."""
    starts = FloorSlot.objects.order_by("-start").values_list("start", flat=True)
    days: list[date] = []
    for start in starts.iterator():
        day = start.astimezone(zone()).date()
        if day not in days:
            days.append(day)
            if len(days) == limit:
                break
    return days


def plans() -> dict:
    """Each queue's name and goal, as the inbound board last read them."""
    return {r["id"]: {"name": r["name"], "goal_pct": r["goal_pct"]} for r in board()["queues"]}


def day_summary(day: date, now: datetime | None = None) -> dict:
    """The summary of `day` (today: so far), from its slots and its normal."""
    now = now or datetime.now(UTC)
    normal = day_normal(day)
    end = min(midnight(day + timedelta(days=1)), slot_of(now))
    goals = plans()
    runs = runs_of(normal, end, [], goals)
    whole = end - SLOT
    return {
        "day": day,
        "until": end.astimezone(zone()),
        "complete": end >= midnight(day + timedelta(days=1)),
        "weeks": len(normal.days),
        "ready": len(normal.days) >= MIN_WEEKS,
        "min_weeks": MIN_WEEKS,
        "time_off": time_off(runs),
        "hours": hours_off(runs),
        "biggest": biggest(runs, whole),
        "queues": ranked_queues(normal, goals, end),
        "campaigns": ranked_campaigns(normal, end),
    }


def _duration(slots: int) -> str:
    minutes = slots * 15
    return f"{minutes // 60}:{minutes % 60:02d}"


def time_off(runs) -> list[dict]:
    """Each figure's time above and below its band (queues: below their goal)."""
    out = {}
    for run in runs:
        slots = (run.last - run.start) // SLOT + 1
        line = out.setdefault(run.label, {"label": run.label, "above": 0, "below": 0})
        line["above" if run.side > 0 else "below"] += slots
    return [
        {**x, "above": _duration(x["above"]), "below": _duration(x["below"])}
        for x in sorted(out.values(), key=lambda x: -(x["above"] + x["below"]))
    ]


def hours_off(runs) -> list[dict]:
    """The hours in which any figure ran outside its band, and which and which way."""
    hours: dict[datetime, set] = {}
    for run in runs:
        at = run.start
        while at <= run.last:
            hour = at.astimezone(zone()).replace(minute=0)
            word = "above" if run.side > 0 else "below"
            hours.setdefault(hour, set()).add(f"{run.label} {word}")
            at += SLOT
    return [{"hour": h, "what": sorted(w)} for h, w in sorted(hours.items())]


def biggest(runs, whole) -> list[dict]:
    """The changes that lasted longest and moved furthest from their median (or goal),
    biggest first."""

    def size(run):
        mid = run.against
        off = abs(run.value - mid) / mid if mid and run.value is not None else 0.5
        return ((run.last - run.start) // SLOT + 1) * off

    return [row(r, whole) for r in sorted(runs, key=size, reverse=True)[:BIGGEST]]


def ranked_queues(normal, goals: dict, end: datetime) -> dict:
    """Each queue's day: offered (against its normal), service level against its goal."""
    days = queue_days(normal)
    rows = []
    for queue, by_day in days.items():
        slots = {at: n for at, n in by_day.get(normal.today, {}).items() if at < end}
        if not slots:
            continue
        total = [sum(n[i] for n in slots.values()) for i in range(5)]
        level = service_level(total[2], total[1], total[3], total[4])
        usual = [queue_offered(days, normal.today, queue, at)[1] for at in slots]
        plan = goals.get(queue, {})
        goal = plan.get("goal_pct")
        rows.append(
            {
                "id": queue,
                "name": plan.get("name") or queue,
                "offered": total[0],
                "normal": round(sum(n.median or 0 for n in usual))
                if all(n.ready for n in usual)
                else None,
                "level": shown(level, "%"),
                "goal": None if goal is None else f"{goal:g}%",
                "margin": None if level is None or goal is None else level - goal,
            }
        )
    judged = sorted((r for r in rows if r["margin"] is not None), key=lambda r: -r["margin"])
    return _best_worst(judged)


def ranked_campaigns(normal, end: datetime) -> dict:
    """Each campaign's dials of the day against its own normal (where it has one)."""
    names = {x.id: x.name for x in summaries.load("campaigns")["data"] or []}
    rows = []
    for campaign, slots in normal.campaigns.items():
        made = [(n, their) for at, (n, their) in slots.items() if at < end]
        dialed = sum(n or 0 for n, _ in made)
        if not dialed and not any(n for n, _ in made):
            continue
        ready = all(their.ready for _, their in made)
        usual = sum(their.median or 0 for _, their in made)
        rows.append(
            {
                "id": campaign,
                "name": names.get(campaign, campaign),
                "dialed": dialed,
                "normal": round(usual) if ready else None,
                "off_pct": round(100 * (dialed / usual - 1)) if ready and usual else None,
            }
        )
    judged = sorted((r for r in rows if r["off_pct"] is not None), key=lambda r: -r["off_pct"])
    return _best_worst(judged)


def _best_worst(judged: list[dict]) -> dict:
    """The top and the bottom, at most `RANKED` each, never the same one in both."""
    worst = min(RANKED, len(judged) // 2)
    best = judged[: min(RANKED, len(judged) - worst)]
    return {"best": best, "worst": judged[::-1][:worst]}


def text_of(summary: dict) -> str:
    """The summary as the chat webhook's one message."""
    day = f"{summary['day']:%a %d %b %Y}"
    if not summary["ready"]:
        return (
            f"{day} against its normal: no normal yet ({summary['weeks']} of the "
            f"{summary['min_weeks']} same weekdays needed)."
        )
    parts = [f"{day} against its normal."]
    if not summary["biggest"]:
        parts.append("Nothing ran outside its normal band.")
    for change in summary["biggest"]:
        cause = f" ({change['causes'][0]['text']})" if change["causes"] else ""
        parts.append(f"{change['sentence']}, {change['where']}{cause}.")
    for kind in ("queues", "campaigns"):
        best, worst = summary[kind]["best"], summary[kind]["worst"]
        if best:
            parts.append(f"Best {kind[:-1]}: {best[0]['name']}.")
        if worst:
            parts.append(f"Worst {kind[:-1]}: {worst[0]['name']}.")
    return " ".join(parts)


def payload(summary: dict) -> dict:
    """The summary as the chat webhook's JSON body."""
    day = summary["day"].isoformat()
    return {
        "transition": SUMMARY,
        "day": day,
        "text": text_of(summary),
        "url": settings.DASHBOARD_URL + reverse("normal-day", args=[day]),
    }

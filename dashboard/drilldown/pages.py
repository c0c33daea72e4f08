"""What the agent and call pages and the search show: what the dashboard holds (read in a
thread: the database and the cache) and what the service answers (asked on the page's
loop within the page's time), merged. When the service fails or is slow, the page shows
what is held and says what it could not fetch."""

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db.models import Avg, Count, FloatField, Q

from dashboard.interventions import audit
from dashboard.live.names import agent_names
from dashboard.live.render import STATE_LOOK
from dashboard.live.state import BUSY_STATES, Counts, aht_s, occupancy_pct
from dashboard.quality.metrics import qa_percent
from dashboard.quality.models import (
    Appointment,
    CoachingAlert,
    CompletedCall,
    ComplianceResult,
    Scorecard,
)
from dashboard.shared import summaries
from dashboard.shared.figures import explain
from dashboard.shared.filling import filling_pct, filling_sentence
from dashboard.shared.templatetags.links import named
from dashboard.shared.today import start_of_today
from dashboard.states import reader as states
from dashboard.states.models import AgentStates
from dashboard.upstream import contract as c
from dashboard.upstream.errors import NotOffered, UpstreamError
from dashboard.upstream.on_request import service

from . import tiles
from .models import CallSeen, Note
from .templatetags.drill import clock

LISTED = 50  # scorecards, failures and alerts listed on an agent's page (the newest)
FOUND = 20  # search results of each kind


async def ask(what: str, request):
    """(The service's answer to `request(client)`, "") or (None, what could not be had)."""
    limit = 2 * settings.UPSTREAM_PAGE_TIMEOUT_S + 1  # one retry (on_request.py)
    try:
        return await asyncio.wait_for(request(service()), limit), ""
    except TimeoutError:
        return None, f"{what}: the service did not answer within {limit:g} s"
    except NotOffered as lacking:
        return None, f"{what}: {lacking}"
    except UpstreamError as exc:
        return None, f"{what}: {exc}"


# ---- Today's states ---------------------------------------------------------------------------
@dataclass
class Segment:
    state: str
    start: datetime
    end: datetime
    call_id: str
    day_start: datetime

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()

    @property
    def offset(self) -> int:  # where it starts on the day's timeline, in seconds
        return int((self.start - self.day_start).total_seconds())

    @property
    def width(self) -> int:
        return max(1, int(self.seconds))

    @property
    def label(self) -> str:
        return STATE_LOOK.get(self.state, STATE_LOOK["unknown"])[1]


def timeline(agent_id: str, day_start: datetime, now: datetime) -> list[Segment]:
    """Today's states, from the journal: each lasts until the next (the last one until now);
    the state the day began in counts from 00:00; repeats of a state are joined."""
    rows = states.agent_changes(agent_id, day_start, now)
    segments: list[Segment] = []
    for row, after in zip(rows, [*rows[1:], None], strict=False):
        start, end = max(row.since, day_start), after.since if after else now
        if end <= start:
            continue
        last = segments[-1] if segments else None
        if last and (last.state, last.call_id, last.end) == (row.state, row.call_id, start):
            last.end = end
        else:
            segments.append(Segment(row.state, start, end, row.call_id, day_start))
    return segments


def day_counts(segments: list[Segment], calls: list[dict]) -> Counts:
    """The agent's day as the live state counts the floor's (docs/metrics.md): busy and
    available time, calls handled, and their talk time plus the agent's wrap-up."""
    counts = Counts()
    for s in segments:
        if s.state in BUSY_STATES:
            counts.add(busy_s=s.seconds)
        elif s.state == "available":
            counts.add(available_s=s.seconds)
        if s.state == "wrap_up":
            counts.add(handle_s=s.seconds)
    handled = [x for x in calls if x.get("duration_s") is not None and not x.get("ai_handled")]
    counts.add(handled=len(handled), handle_s=sum(x["duration_s"] for x in handled))
    return counts


# ---- Calls: what each source says, merged ---------------------------------------------------
FACTS = ("agent_id", "campaign_id", "direction", "ai_handled", "started_at", "ended_at")
FACTS += ("outcome", "duration_s")


def merged(webhook: list[CompletedCall], seen: list[CallSeen], fetched: list[c.Call]):
    """Call rows by id: the service's record over the events over the webhook, fact by fact
    (a source that does not know a fact leaves it to the next); `sources` names them."""
    rows: dict[str, dict] = {}

    def take(call_id: str, source: str, facts: dict):
        row = rows.setdefault(call_id, blank(call_id))
        row["sources"].append(source)
        row.update({k: v for k, v in facts.items() if v not in (None, "")})

    for x in webhook:
        facts = {"agent_id": x.agent_id, "campaign_id": x.campaign_id, "outcome": x.outcome}
        facts |= {"duration_s": x.duration_s, "ended_at": x.completed_at}
        take(x.call_id, "the call_completed webhook", facts)
    for x in seen:
        take(x.call_id, "live events", {k: getattr(x, k) for k in FACTS})
    for x in fetched:
        take(x.call_id, "the service's record", {k: getattr(x, k) for k in FACTS})
    for row in rows.values():
        row["at"] = row["started_at"] or row["ended_at"]
    return rows


def blank(call_id: str) -> dict:
    return {"call_id": call_id, "sources": [], **dict.fromkeys(FACTS)}


def newest_first(rows) -> list[dict]:
    oldest = datetime.min.replace(tzinfo=UTC)
    return sorted(rows, key=lambda row: row["at"] or oldest, reverse=True)


def campaign_names() -> dict[str, str]:
    return {x.id: x.name for x in summaries.load("campaigns")["data"] or []}


# ---- The agent's page -------------------------------------------------------------------------
def agent_known(agent_id: str) -> bool:
    """On the live floor now, or in anything the dashboard keeps about it. Another
    organisation's agents are never (their events and webhooks are refused)."""
    return agent_id in agent_names() or any(
        model.objects.filter(agent_id=agent_id).exists()
        for model in (AgentStates, CallSeen, CompletedCall, CoachingAlert)
    )


def agent_held(agent_id: str, day_start: datetime) -> dict:
    """Everything the dashboard holds about the agent (sync: the database and the cache)."""
    cards = Scorecard.objects.filter(agent_id=agent_id)
    qa = cards.aggregate(
        n=Count("id"),
        passed=Count("id", filter=Q(passed=True)),
        avg=Avg(qa_percent(), output_field=FloatField()),
    )
    alerts = list(
        CoachingAlert.objects.filter(agent_id=agent_id)
        .order_by("-raised_at")
        .prefetch_related("actions__by")[:LISTED]
    )
    failures = ComplianceResult.objects.filter(agent_id=agent_id, passed=False)
    templates = summaries.load("templates")["data"] or []
    return {
        "name": agent_names().get(agent_id) or named(agent_id, {}),
        "tile": tiles.current(agent_id)[1],
        "interventions": audit.for_agent(agent_id),
        "webhook_calls": list(
            CompletedCall.objects.filter(agent_id=agent_id, completed_at__gte=day_start)
        ),
        "seen_calls": list(
            CallSeen.objects.filter(agent_id=agent_id).filter(
                Q(started_at__gte=day_start) | Q(started_at=None, ended_at__gte=day_start)
            )
        ),
        "qa": {
            **qa,
            "pass_pct": round(100 * qa["passed"] / qa["n"], 1) if qa["n"] else None,
            "avg": round(qa["avg"], 1) if qa["avg"] is not None else None,
        },
        "scorecards": list(cards.order_by("-scored_at")[:LISTED]),
        "template_names": {t.id: t.name for t in templates},
        "failures": list(failures.order_by("-checked_at")[:LISTED]),
        "failures_total": failures.count(),
        "open_alerts": [a for a in alerts if a.status != CoachingAlert.RESOLVED],
        "resolved_alerts": [a for a in alerts if a.status == CoachingAlert.RESOLVED],
        "notes": list(Note.objects.filter(agent_id=agent_id).select_related("author")),
    }


def agent_day(agent_id: str, held: dict, fetched: list[c.Call], day_start, now) -> dict:
    """Today: the timeline, the calls newest first with their evidence, the figures."""
    calls = newest_first(merged(held["webhook_calls"], held["seen_calls"], fetched).values())
    campaigns = campaign_names()
    evidence = call_evidence([x["call_id"] for x in calls])
    for row in calls:
        row["campaign"] = campaigns.get(row["campaign_id"], "")
        row.update(evidence.get(row["call_id"], {}))
    segments = timeline(agent_id, day_start, now)
    counts = day_counts(segments, calls)
    by_state: dict[str, float] = {}
    for s in segments:
        by_state[s.state] = by_state.get(s.state, 0) + s.seconds
    return {
        "calls": calls,
        "segments": segments,
        "now_offset": int((now - day_start).total_seconds()),
        "by_state": [
            {
                "state": state,
                "label": STATE_LOOK.get(state, STATE_LOOK["unknown"])[1],
                "seconds": seconds,
            }
            for state, seconds in sorted(by_state.items(), key=lambda x: -x[1])
        ],
        "figures": {
            "occupancy_pct": occupancy_pct(counts),
            "aht_s": aht_s(counts),
            "handled": counts.handled,
            "busy_s": counts.busy_s,
            "available_s": counts.available_s,
        },
    }


def call_evidence(call_ids: list[str]) -> dict[str, dict]:
    """Per call: its QA score, failed compliance checks and coaching alerts, if any."""
    out: dict[str, dict] = {}
    for s in Scorecard.objects.filter(call_id__in=call_ids).order_by("scored_at"):
        out.setdefault(s.call_id, {})["scorecard"] = s
    rows = ComplianceResult.objects.filter(call_id__in=call_ids, passed=False)
    for row in rows.values("call_id").annotate(n=Count("id")).order_by():
        out.setdefault(row["call_id"], {})["failed_checks"] = row["n"]
    rows = CoachingAlert.objects.filter(call_id__in=call_ids)
    for row in rows.values("call_id").annotate(n=Count("id")).order_by():
        out.setdefault(row["call_id"], {})["alerts"] = row["n"]
    return out


async def agent_context(agent_id: str) -> dict | None:
    """The agent's page, or None when no such agent is known."""
    if not await sync_to_async(agent_known)(agent_id):
        return None
    day_start = await sync_to_async(start_of_today)()
    held = await sync_to_async(agent_held)(agent_id, day_start)
    fetched, problem = await ask(
        "Today's calls from the service",
        lambda rest: rest.calls(since=day_start, agent_id=agent_id),
    )
    now = datetime.now(UTC)
    day = await sync_to_async(agent_day)(agent_id, held, fetched or [], day_start, now)
    # today's states, calls and scorecards before this dashboard saw the floor come from
    # the service's history: partial while it is read
    filling = await sync_to_async(filling_pct)()
    return {
        "agent_id": agent_id,
        **held,
        **day,
        "filling_pct": filling,
        "panels": agent_panels(held["qa"], day, filling),
        "problems": [problem] if problem else [],
    }


AGENT_FIGURES = ("agent_occupancy", "agent_aht", "agent_handled", "agent_timeline", "agent_qa")


def agent_panels(qa: dict, day: dict, filling: int | None) -> list[dict]:
    """The explain panels of the agent's figures, with the counts behind each (while today
    is read from the service's history, `filling`: that they are partial)."""
    if filling is not None:
        return [explain(key, [f"Partial: {filling_sentence(filling)}"]) for key in AGENT_FIGURES]
    f, handled = day["figures"], day["figures"]["handled"]
    busy, available = f["busy_s"], f["available_s"]
    handle_s = f["aht_s"] * handled if f["aht_s"] is not None else 0
    return [
        explain(
            "agent_occupancy",
            [f"busy {clock(busy)} of {clock(busy + available)} busy or available"],
        ),
        explain("agent_aht", [f"{clock(handle_s)} talk and wrap-up over {handled} calls handled"]),
        explain("agent_handled", [f"{handled} calls ended today, not AI-handled"]),
        explain("agent_timeline", [f"{len(day['segments'])} states held today"]),
        explain("agent_qa", [f"{qa['passed']} passed of {qa['n']} scorecards"]),
    ]


# ---- The call's page --------------------------------------------------------------------------
def call_held(call_id: str) -> dict:
    return {
        "interventions": audit.for_call(call_id),
        "seen": CallSeen.objects.filter(call_id=call_id).first(),
        "completed": CompletedCall.objects.filter(call_id=call_id).first(),
        "scorecards": list(Scorecard.objects.filter(call_id=call_id).order_by("-scored_at")),
        "checks": list(ComplianceResult.objects.filter(call_id=call_id).order_by("checked_at")),
        "alerts": list(
            CoachingAlert.objects.filter(call_id=call_id)
            .order_by("-raised_at")
            .prefetch_related("actions__by")
        ),
        "appointments": list(Appointment.objects.filter(call_id=call_id)),
    }


def call_facts(call_id: str, held: dict, fetched: c.Call | None) -> dict:
    webhook = [held["completed"]] if held["completed"] else []
    seen = [held["seen"]] if held["seen"] else []
    row = merged(webhook, seen, [fetched] if fetched else []).get(call_id, blank(call_id))
    names, agent_id = agent_names(), row["agent_id"]
    templates = summaries.load("templates")["data"] or []
    live = bool(fetched and fetched.ended_at is None and fetched.state != "ended")
    return {
        "call": row,
        "live": live,
        # the agent's live tile: who is listening, and this person's session bar
        "tile": tiles.current(agent_id)[1] if live and agent_id else "",
        "base_template": "live/socket_page.html" if live and agent_id else "base.html",
        "agent_name": names.get(agent_id) or (named(agent_id, {}) if agent_id else ""),
        "campaign": campaign_names().get(row["campaign_id"], ""),
        "template_names": {t.id: t.name for t in templates},
    }


async def call_context(call_id: str) -> dict | None:
    """The call's page, or None when neither the dashboard nor the service knows the call
    (another organisation's calls are unknown to both: the service answers 404)."""
    held = await sync_to_async(call_held)(call_id)
    fetched, problem = await ask("The call's record from the service", lambda r: r.call(call_id))
    if fetched is None and not problem and not any(held.values()):
        return None
    facts = await sync_to_async(call_facts)(call_id, held, fetched)
    return {
        "call_id": call_id,
        **held,
        **facts,
        "fetched": fetched,
        "problems": [problem] if problem else [],
    }


async def recording(call_id: str) -> tuple[c.Recording | None, str]:
    """The call's recording with its short-lived address, or None and why it could not be
    had ("" when the service answered that it has none)."""
    found, problem = await ask("The recording", lambda rest: rest.recordings(call_id))
    return (found[0] if found else None), problem


# ---- Search -----------------------------------------------------------------------------------
def search_held(q: str) -> dict:
    """Agents whose name holds `q` (or whose id is `q`), and calls whose id is or starts
    with it, among what the dashboard holds."""
    folded = q.casefold()
    agents = sorted(
        (name, agent_id)
        for agent_id, name in agent_names().items()
        if folded in name.casefold() or agent_id == q
    )[:FOUND]
    calls: list[str] = []
    if len(q) >= 4:
        for model in (CallSeen, CompletedCall):
            found = model.objects.filter(call_id__startswith=q).values_list("call_id", flat=True)
            calls += [x for x in found[:FOUND] if x not in calls]
    return {"agents": [{"id": i, "name": n} for n, i in agents], "calls": calls[:FOUND]}

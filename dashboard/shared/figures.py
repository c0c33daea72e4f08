"""What each figure means, in one place: the explain panels render it and
tests/test_figures_doc.py checks it word for word against the tables of docs/metrics.md.

A panel is `templates/figures/_explain.html`, given `explain(key, inputs)`; a control that
opens it is `templates/figures/_open.html` (`key`, optional `label`). Formula, window and
source are fixed; the inputs are the counts behind the number shown. On a page whose
figures are pushed, the panels stay out of the pushed fragments (a replaced panel would
close) and the fragments carry the inputs in hidden `data-why="KEY"` elements, which
static/js/explain.js copies into the open panel.
"""

import re
from dataclasses import dataclass

from django.conf import settings
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

LIVE = "Live floor"
CHARTS = "Intraday charts (live view)"
OUTBOUND = "Outbound (campaigns)"
QA = "QA"
AGENT = "One agent's day (the agent's page)"
INBOUND = "Inbound (queues and voicemail)"
QUEUE_STATS = (
    "`GET /inbound/queues/{id}/stats?since=` (00:00) every `INBOUND_POLL_S`; "
    "`GET /inbound/queues` for the target and goal"
)
DAY_SOURCES = (
    "the 15-minute slots stored earlier today; calls the service lists (`GET /calls?since=`) "
    "that neither counted"
)


@dataclass(frozen=True)
class Figure:
    table: str  # the docs/metrics.md table that defines it
    name: str
    formula: str
    window: str
    source: str


FIGURES = {
    "agent_states": Figure(
        LIVE,
        "Agents by state",
        "count of agents whose current status is that state: available, ringing (shown "
        'under "On call"), on call, wrap-up, paused, offline; an unknown status is counted '
        'as "unknown", never dropped',
        "now",
        "`GET /agent-status` on (re)connect, then `agent.status` events",
    ),
    "active_calls": Figure(
        LIVE,
        "Active calls",
        "calls started and not yet ended",
        "now",
        "`GET /calls?status=active` on (re)connect, then `call.started` / `call.ended`",
    ),
    "ai_calls": Figure(
        LIVE,
        "AI-handled",
        "active calls with `ai_handled = true`",
        "now",
        "`GET /calls?status=active` on (re)connect, then `call.started` / `call.ended`",
    ),
    "waiting": Figure(
        LIVE,
        "Calls waiting",
        "sum of `waiting` over queues",
        "now",
        "the latest `queue.stats` of each queue",
    ),
    "longest_wait": Figure(
        LIVE,
        "Longest wait",
        "the longest `longest_wait_s` over queues, plus the time since those statistics "
        "where callers are still waiting",
        "now",
        "the latest `queue.stats` of each queue",
    ),
    "service_level": Figure(
        LIVE,
        "Service level",
        "where the service has inbound queues: each queue's own service level (Inbound), "
        "weighted by the calls it was offered while open, Σ(level × offered) ÷ Σ offered; "
        "otherwise inbound calls answered within the threshold (`SERVICE_LEVEL_THRESHOLD_S`, "
        "default 20 s) ÷ inbound calls answered",
        "today; per 15 minutes on the chart (the same formula over each slot's open parts, "
        "kept in `QueueSlot`; the threshold's formula where there are no queues)",
        f"{QUEUE_STATS} and `GET /schedules`; otherwise `call.started` (inbound, with an "
        "agent) and `queue.stats`; the 15-minute slots stored earlier today",
    ),
    "completed": Figure(
        LIVE,
        "Completed",
        "calls ended",
        "today",
        f"`call.ended` events; {DAY_SOURCES}",
    ),
    "aht": Figure(
        LIVE,
        "AHT (average handle time)",
        "(talk + hold time of agent-handled calls + the agents' wrap-up time after them, a "
        "wrap-up under way counted up to now) ÷ agent-handled calls ended",
        "today; per 15 minutes on the chart",
        "`call.ended.duration_s`; wrap-up from `agent.status` (`wrap_up` → next state); "
        f"{DAY_SOURCES} (their talk time only)",
    ),
    "occupancy": Figure(
        LIVE,
        "Occupancy",
        "agent time ringing, on calls and in wrap-up ÷ (that time + agent time available), "
        "states under way counted up to now; paused and offline time are left out",
        "today",
        "`agent.status`: each state's time (time before 00:00 is cut off); the 15-minute "
        "slots stored earlier today",
    ),
    "ai_share": Figure(
        LIVE,
        "AI-handled share (header)",
        "calls ended that the AI handled ÷ calls ended",
        "today",
        f"`call.ended` of calls started with `ai_handled = true`; {DAY_SOURCES}",
    ),
    "ai_dialing": Figure(
        LIVE,
        "AI dialing on/off (header)",
        "the service's `enabled` flag",
        "as of the last pull",
        "`GET /ai`",
    ),
    "appointments_today": Figure(
        LIVE,
        "Appointments (tile)",
        "appointments booked",
        "today",
        "`appointment_booked` webhooks, stored",
    ),
    "open_critical": Figure(
        LIVE,
        "Critical alerts (tile)",
        "coaching alerts of severity critical not resolved (open or acknowledged)",
        "now",
        "`coaching_alert` webhooks, resolutions on `/coaching/`",
    ),
    "abandon_rate": Figure(
        LIVE,
        "Abandon rate",
        "**not shown as one floor figure**: each queue's abandoned calls (those under 5 s "
        "apart) are on the queues panel and `/queues/`",
        "today",
        "`GET /inbound/queues/{id}/stats?since=`",
    ),
    "asa": Figure(
        LIVE,
        "ASA",
        "**not shown**: the contract carries no per-call queue time (see service level)",
        "–",
        "–",
    ),
    "chart_calls": Figure(
        CHARTS,
        "Calls per 15 minutes",
        "`call.started` events in the slot (bars) and `call.ended` events in the slot "
        "(line); dashed: the same weekday last week",
        "per 15 minutes, today",
        f"realtime events, kept in `FloorSlot`; {DAY_SOURCES}",
    ),
    "chart_service": Figure(
        CHARTS,
        "Service level and AHT per 15 minutes",
        "service level: where the service has inbound queues, each queue's own service level "
        "over the slot (its own target, open minutes only), weighted by the calls it was "
        "offered while open, as the Service level tile; otherwise the live formula over the "
        "slot's counters. AHT: the live formula over the slot's counters. Dashed: the same "
        "weekday last week",
        "per 15 minutes, today",
        "`GET /inbound/queues/{id}/stats`, kept in `QueueSlot`; realtime events, kept in "
        "`FloorSlot`",
    ),
    "progress": Figure(
        OUTBOUND,
        "Progress",
        "contacts dialed ÷ contacts in the campaign (`dialedContacts` ÷ `totalContacts`)",
        "since the campaign started",
        "`GET /campaigns`",
    ),
    "connect_rate": Figure(
        OUTBOUND,
        "Connect rate",
        "connected calls ÷ dial attempts (`connectedCalls` ÷ `dialedContacts`)",
        "since the campaign started",
        "`GET /campaigns`",
    ),
    "appointments": Figure(
        OUTBOUND,
        "Appointments",
        "`appointmentsBooked`",
        "since the campaign started",
        "`GET /campaigns`",
    ),
    "conversion": Figure(
        OUTBOUND,
        "Conversion",
        "appointments booked ÷ connected calls (`appointmentsBooked` ÷ `connectedCalls`)",
        "since the campaign started",
        "`GET /campaigns`",
    ),
    "chart_campaign": Figure(
        OUTBOUND,
        "Dial attempts, connects, appointments per 15 minutes (campaign chart)",
        "how much `dialedContacts`, `connectedCalls`, `appointmentsBooked` grew between two "
        "pulls, added to the slot of the later pull; dashed: the same weekday last week",
        "per 15 minutes, today",
        "`GET /campaigns`, kept in `CampaignSlot`",
    ),
    "outcome_mix": Figure(
        OUTBOUND,
        "Outcome mix",
        "completed calls of the campaign by `outcome` ÷ all its completed calls",
        "today",
        "`call_completed` webhooks",
    ),
    "qa_average": Figure(
        QA,
        "QA average",
        "mean over scorecards of score ÷ the template's max score",
        "all received (tables), today per hour (trend; dashed: the same weekday last week)",
        "`qa_scored` webhooks",
    ),
    "pass_rate": Figure(
        QA,
        "Pass rate",
        "scorecards passed ÷ scorecards",
        "all received",
        "`qa_scored` webhooks",
    ),
    "service_counts": Figure(
        QA,
        "The service's counts",
        "scorecards, compliance checks (failed), coaching alerts (critical) since 00:00",
        "today, as of the last pull",
        "`GET /qa/scorecards`, `/compliance/checks`, `/coaching/alerts?since=`",
    ),
    "agent_occupancy": Figure(
        AGENT,
        "Occupancy",
        "the agent's time ringing, on calls and in wrap-up ÷ (that time + its time available)",
        "today, up to now",
        "`agent.status` events (journal)",
    ),
    "agent_aht": Figure(
        AGENT,
        "AHT",
        "(talk time of the agent's calls ended today + its wrap-up time today) ÷ those calls",
        "today",
        "call durations from the service's `GET /calls?agent_id=&since=`, `call.ended` events "
        "and `call_completed` webhooks (one row per call: the service's record over the "
        "events over the webhook); wrap-up from the journal",
    ),
    "agent_handled": Figure(
        AGENT,
        "Calls handled",
        "the agent's calls ended today, not AI-handled",
        "today",
        "as above",
    ),
    "agent_timeline": Figure(
        AGENT,
        "Today's states",
        "each state from its start to the next change (the last one to now), on a 00:00-24:00 bar",
        "today",
        "the journal",
    ),
    "agent_qa": Figure(
        AGENT,
        "QA average, pass rate",
        "as on the QA page, over the agent's scorecards",
        "all received",
        "`qa_scored` webhooks",
    ),
    # ---- Inbound (dashboard/inbound/) ----------------------------------------------------
    "queue_service_level": Figure(
        INBOUND,
        "Queue service level",
        "calls answered within the queue's own target (`service_level_target_s`) ÷ (answered "
        "+ abandoned − abandoned under 5 s), counting only what the counters grew while the "
        "queue's schedule was open; green when it meets the queue's own goal "
        "(`service_level_goal_pct`), red below it",
        "today, open minutes only; per 15 minutes on the queue's page",
        f"{QUEUE_STATS}: the growth between two reads goes to the 15-minute slot of the "
        "later read, open or closed as `GET /schedules` `openNow` said then; the service "
        "gives totals since a time, so what its counters held at the dashboard's first read "
        "of the day counts whole, in no slot (the day per 15 minutes starts at that read)",
    ),
    "queue_calls": Figure(
        INBOUND,
        "Offered, answered, abandoned",
        "the service's counts of calls that reached the queue, were answered, were abandoned; "
        "abandons under 5 s (`abandoned_within_5s`) shown apart from the others; between "
        "two reads, the newer counts of a `queue.stats` event",
        "today",
        f"{QUEUE_STATS}; `queue.stats` events (`offered`, `answered`, `abandoned`)",
    ),
    "queue_wait": Figure(
        INBOUND,
        "Waiting, longest wait, average wait",
        "callers waiting now and the longest of their waits; the service's average wait of "
        "the calls answered",
        "now (waiting, longest); today (average)",
        "the latest `queue.stats` of the queue; `average_wait_s` and `longest_wait_s` of "
        "`GET /inbound/queues/{id}/stats`",
    ),
    "ring_available": Figure(
        INBOUND,
        "Agents available (ring group)",
        "agents of the queue's ring group (`ring_group.agent_ids`) whose status is available",
        "now",
        "`GET /inbound/queues`; `agent.status` events",
    ),
    "voicemail_waiting": Figure(
        INBOUND,
        "Voicemail waiting",
        "messages not handled; the oldest one's age (now − `received_at`)",
        "every message waiting from the last 30 days, now",
        "`GET /voicemail-messages?since=` (30 days back) `&status=new` every `INBOUND_POLL_S` "
        "and at once on `voicemail.received` and `voicemail.transcribed`",
    ),
    "voicemail_handled": Figure(
        INBOUND,
        "Handled today, median time to handle",
        "messages handled since 00:00; the median of `handled_at` − `received_at` over them",
        "today (messages received since yesterday's 00:00)",
        "`GET /voicemail-messages?since=` (yesterday's 00:00)",
    ),
}

MARKS = re.compile(r"`([^`]*)`|\*\*([^*]*)\*\*")


def marked(text: str) -> SafeString:
    """The doc's markdown marks as HTML: `code` and **strong**; everything else escaped."""
    out, at = [], 0
    for m in MARKS.finditer(text):
        out.append(escape(text[at : m.start()]))
        code, strong = m.groups()
        out.append(
            format_html("<code>{}</code>", code)
            if code is not None
            else format_html("<strong>{}</strong>", strong)
        )
        at = m.end()
    out.append(escape(text[at:]))
    return mark_safe("".join(out))


def window(text: str) -> str:
    """The doc's window with the day it means: "today since 00:00, Europe/London"."""
    return re.sub(r"\btoday\b", f"today since 00:00, {settings.TIME_ZONE}", text, count=1)


def explain(key: str, inputs=(), origin: str = "") -> dict:
    """What `templates/figures/_explain.html` shows for the figure `key`: its definition,
    the counts behind the number (`inputs`, lines of text) and, for figures fed live, the
    `data-why` key of a line saying where today's counts came from (`origin`)."""
    f = FIGURES[key]
    return {
        "key": key,
        "name": f.name,
        "formula": marked(f.formula),
        "window": marked(window(f.window)),
        "source": marked(f.source),
        "inputs": list(inputs),
        "origin": origin,
    }


def chart_panels(charts: dict) -> list[dict]:
    """The explain panels of a page's charts (dashboard/shared/charts.py `chart`)."""
    return [explain(x["explains"], x["inputs"]) for x in charts.values() if x["explains"]]

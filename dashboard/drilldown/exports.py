"""The agent's and the call's pages' lists as CSV downloads (dashboard/shared/export.py):
`?format=csv&table=...` on the page's own URL. Today's calls are the page's own (merged
from live events, webhooks and the service); scorecards, failures and alerts are every
one the dashboard holds (the page lists the newest)."""

from dashboard.quality.models import CoachingAlert, ComplianceResult, Scorecard
from dashboard.shared.export import csv_response, no_such_table
from dashboard.shared.filling import still_filling

# Each table takes in today, which the service's history fills: partial while it is read.
AGENT_TABLE_NAMES = {
    "calls": "the agent's calls",
    "scorecards": "the agent's scorecards",
    "failures": "the agent's compliance failures",
    "alerts": "the agent's coaching alerts",
}
AGENT_TABLES = tuple(AGENT_TABLE_NAMES)
CALL_TABLES = ("checks", "alerts")
ALERT_HEADER = ["Raised", "Severity", "Kind", "Call id", "Status", "Message"]


def agent(table: str, context: dict):
    agent_id, name = context["agent_id"], f"agent-{context['agent_id']}"
    if table in AGENT_TABLE_NAMES:
        refused = still_filling(AGENT_TABLE_NAMES[table], context["filling_pct"])
        if refused:
            return refused
    if table == "calls":
        return csv_response(
            f"{name}-calls",
            ["Started", "Ended", "Call id", "Direction", "AI-handled", "Campaign", "Outcome"]
            + ["Duration s", "QA score", "QA max", "Failed checks", "Coaching alerts"],
            (_call_row(x) for x in context["calls"]),
        )
    if table == "scorecards":
        cards = Scorecard.objects.filter(agent_id=agent_id).order_by("-scored_at")
        return csv_response(
            f"{name}-scorecards",
            ["Scored", "Call id", "Template id", "Score", "Max score", "Passed"],
            (
                (s.scored_at, s.call_id, s.template_id, s.score, s.max_score, s.passed)
                for s in cards.iterator()
            ),
        )
    if table == "failures":
        rows = ComplianceResult.objects.filter(agent_id=agent_id, passed=False)
        return _checks(f"{name}-compliance-failures", rows)
    if table == "alerts":
        return _alerts(f"{name}-coaching-alerts", CoachingAlert.objects.filter(agent_id=agent_id))
    return no_such_table(table, AGENT_TABLES)


def call(table: str, context: dict):
    call_id = context["call_id"]
    if table == "checks":
        return _checks(f"call-{call_id}-checks", ComplianceResult.objects.filter(call_id=call_id))
    if table == "alerts":
        return _alerts(
            f"call-{call_id}-coaching-alerts", CoachingAlert.objects.filter(call_id=call_id)
        )
    return no_such_table(table, CALL_TABLES)


def _call_row(x: dict) -> tuple:
    card = x.get("scorecard")
    return (
        x["started_at"],
        x["ended_at"],
        x["call_id"],
        x["direction"],
        x["ai_handled"],
        x.get("campaign", ""),
        x["outcome"],
        x["duration_s"],
        card.score if card else None,
        card.max_score if card else None,
        x.get("failed_checks", 0),
        x.get("alerts", 0),
    )


def _checks(name: str, rows):
    return csv_response(
        name,
        ["Checked", "Rule", "Passed", "Call id", "Agent id", "Details"],
        (
            (r.checked_at, r.rule, r.passed, r.call_id, r.agent_id, r.details)
            for r in rows.order_by("-checked_at").iterator()
        ),
    )


def _alerts(name: str, rows):
    return csv_response(
        name,
        ALERT_HEADER,
        (
            (a.raised_at, a.severity, a.kind, a.call_id, a.status, a.message)
            for a in rows.order_by("-raised_at").iterator()
        ),
    )

"""The QA and coaching pages' tables as CSV downloads (dashboard/shared/export.py)."""

from dashboard.live.names import agent_names
from dashboard.shared.export import csv_response, no_such_table
from dashboard.shared.filling import filling_pct, still_filling
from dashboard.shared.percent import pct
from dashboard.shared.templatetags.links import named

from .metrics import service_totals
from .pages import alerts_matching, failures_by_rule, scores_by

# Every scorecard and check received, today's among them: partial while today is read.
QA_TABLE_NAMES = {
    "by_agent": "QA by agent",
    "by_template": "QA by template",
    "failures": "the compliance failures",
}
QA_TABLES = tuple(QA_TABLE_NAMES)
SCORES = ["Scorecards", "Average QA score %", "Passed", "Pass rate %"]


def qa(table: str):
    """One of the QA page's tables, every row (the page shows the 50 with most)."""
    if table in QA_TABLE_NAMES:
        refused = still_filling(QA_TABLE_NAMES[table], filling_pct())
        if refused:
            return refused
    if table == "by_agent":
        names = agent_names()
        rows = scores_by("agent_id", lambda a: _agent(a, names), limit=None)
        return _scores("qa-by-agent", ["Agent id", "Agent"], "agent_id", rows)
    if table == "by_template":
        names = service_totals()["template_names"]
        rows = scores_by("template_id", lambda t: named(t, names), limit=None)
        return _scores("qa-by-template", ["Template id", "Template"], "template_id", rows)
    if table == "failures":
        return csv_response(
            "compliance-failures",
            ["Rule", "Failed checks"],
            ((r["rule"], r["n"]) for r in failures_by_rule()),
        )
    return no_such_table(table, QA_TABLES)


def _scores(name: str, first: list[str], key: str, rows: list[dict]):
    return csv_response(
        name,
        first + SCORES,
        (
            (r[key], r["name"], r["n"], round(r["avg"], 1), r["passed"], pct(r["passed"], r["n"]))
            for r in rows
        ),
    )


def _agent(agent_id: str, names: dict) -> str:
    return named(agent_id, names) if agent_id else "AI"


def coaching(chosen: dict):
    """Every alert the page's filters match (the page shows the newest 200)."""
    names = agent_names()
    return csv_response(
        "coaching-alerts",
        ["Raised", "Severity", "Kind", "Agent id", "Agent", "Call id", "Status", "Message"],
        (
            (
                a.raised_at,
                a.severity,
                a.kind,
                a.agent_id,
                _agent(a.agent_id, names),
                a.call_id,
                a.status,
                a.message,
            )
            for a in alerts_matching(chosen).iterator(chunk_size=500)
        ),
    )

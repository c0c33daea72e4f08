"""The wallboard's own panels (campaign progress, QA leaderboard, open coaching alerts),
rendered once per change as parts of the live feed's pushes (`Panels`, which the
composition root subscribes to the feed) and fanned out to the wallboards that show them.

Each panel is a top-level element with a stable id, swapped out of band like the live
view's fragments, and rendered on its own: a link is sent only the panels it was made with.
The figures are named with their denominators and windows on screen.
"""

from django.template.loader import render_to_string

from dashboard.live.render import ascii_html
from dashboard.live.subscribers import Board, Subscriber
from dashboard.quality.metrics import MOST_SEVERE_FIRST
from dashboard.reports.metrics import campaign_row
from dashboard.upstream import contract as c

CAMPAIGN_ROWS = 8  # what fits one screen at a distance; active campaigns first


def render(campaigns: list[c.Campaign], figures: dict, names: dict[str, str]) -> dict[str, str]:
    """Each panel's fragment, by its key (the link's panel keys)."""
    open_alerts = figures.get("open_alerts")
    shown = sorted(campaigns, key=lambda x: (x.status != "active", x.name.lower()))
    context = {
        "campaigns": [campaign_row(x) for x in shown[:CAMPAIGN_ROWS]],
        "more": max(0, len(shown) - CAMPAIGN_ROWS),
        "leaders": [
            {**row, "name": names.get(row["agent_id"]) or "Unknown agent"}
            for row in figures.get("qa_leaderboard") or []
        ],
        "alerts": None
        if open_alerts is None
        else {
            "total": sum(open_alerts.values()),
            "by_severity": [(s, open_alerts.get(s, 0)) for s in MOST_SEVERE_FIRST],
        },
    }
    return {
        panel: ascii_html(render_to_string("wallboard/_panels.html", {**context, "panel": panel}))
        for panel in ("campaigns", "qa", "alerts")
    }


class Panels(Subscriber):
    """The panels as parts of every live push: each wallboard is sent those it shows."""

    def parts(self, board: Board) -> dict[str, str]:
        return render(board.campaigns, board.figures, board.names)

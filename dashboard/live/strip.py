"""A KPI strip written by Python, exactly as templates/live/_kpis.html renders it.

At 10,000 agents in 100 teams the feed renders a strip for each team set in use four
times a second; through Django's template engine a strip's own part (its agents' and
calls' tiles around the floor's figures, which are rendered once and shared) took about
90 us. The template stays the strip's markup of record: tests/live/test_strip.py renders
both for varied figures and hostile team names and requires the same bytes. Every value
is escaped with django.utils.html's `escape`, as the template's autoescaping does.
"""

from django.utils import html

# django.utils.html.escape itself, without its check for lazy strings (a strip's values are
# plain str and int): a third of its time, a good part of the whole.
escape = html.escape.__wrapped__


def strip_html(kpis: dict, floor: str, why: str, teams: str) -> str:
    """The strip of `teams` ("" the whole floor): `kpis` as `LiveState.kpis` gives them
    (scoped to the teams), `floor` and `why` already rendered (safe)."""
    agents = kpis["agents"]
    label = f"teams {escape(teams)}" if teams else "whole floor"
    unknown = agents["unknown"]
    return "".join(
        [
            f'<div id="kpis" class="kpis" aria-label="Key figures: {label}" '
            f'data-teams="{escape(teams)}">',
            tile("available", "agent_states", "Available", agents["available"]),
            f'<div class="sub">of {escape(kpis["agents_total"])} agents</div></div>',
            tile("on_call", "agent_states", "On call", agents["on_call"]),
            f'<div class="sub">{escape(agents["ringing"])} ringing</div></div>',
            tile("wrap_up", "agent_states", "Wrap-up", agents["wrap_up"]),
            "</div>",
            tile("paused", "agent_states", "Paused", agents["paused"]),
            "</div>",
            tile("offline", "agent_states", "Offline", agents["offline"]),
            f'<div class="sub">{escape(unknown)} unknown</div>' if unknown else "",
            "</div>",
            tile("", "active_calls", "Active calls", kpis["active_calls"]),
            '<div class="sub">now</div></div>',
            tile("", "ai_calls", "AI-handled", kpis["ai_calls"]),
            '<div class="sub">of active calls</div></div>',
            floor,
            why,
            "</div>\n",
        ]
    )


def tile(kind: str, why: str, label: str, value) -> str:
    """A tile's opening, its label and its value; the caller writes the rest."""
    kind = f' data-kind="{kind}"' if kind else ""
    return (
        f'<div class="kpi"{kind}><button class="label" popovertarget="why-{why}">{label}'
        f'</button><div class="value">{escape(value)}</div>'
    )

"""An agent's tile written by Python, exactly as templates/live/_agent.html renders it.

The feed renders a tile for every agent change, a thousand a second on a floor of 10,000
agents: Django's template engine took about 70 us a tile (resolving each variable through
the context, escaping through lazy wrappers), some half of the push's CPU. The template
stays the tile's markup of record: tests/live/test_tile.py renders both for varied agents
(hostile names among them) and requires the same bytes, so a change to one is a change to
the other. Every value is escaped with django.utils.html's `escape`, as the template's
autoescaping does, each once however often the tile shows it.
"""

from django.utils import html

from dashboard.shared.templatetags.links import call_url

# django.utils.html.escape itself, without its check for lazy strings (a tile's values are
# plain str and int): a third of its time, a good part of the whole.
escape = html.escape.__wrapped__


def agent_tile(agent: dict) -> str:
    """The tile of `agent`, the context `Renderer.agent_context` gives the template."""
    name, team = escape(agent["name"]), escape(agent["team"])
    limit = agent["limit"]
    call = agent["call"]
    call_id = escape(call["id"]) if call else ""
    out = [
        f'<div id="agent-{escape(agent["id"])}" class="agent" data-into="agents" '
        f'data-state="{escape(agent["state"])}" data-team="{team}" data-name="{name}" '
        f'data-since="{escape(agent["since"])}"',
        f' data-limit="{escape(limit)}"' if limit else "",
        f' data-seq="{escape(agent["seq"])}" data-emitted="{escape(agent["emitted"])}">'
        f'<div class="agent-body"><a class="name" href="{escape(agent["url"])}" title="{name}">'
        f'<bdi>{name}</bdi></a><span class="timer" role="timer" aria-label="time in state">'
        "</span>",
    ]
    if agent["monitors"]:
        out.append(f'<span class="team monitors" title="{team}">')
        out += [monitor(m, call_id) for m in agent["monitors"]]
        out.append("\n</span>")  # the include's own last line break
    elif agent["pending"] == "paused":
        out.append(f'<span class="team pending" title="{team}">Pause pending</span>')
    else:
        out.append(f'<span class="team"><bdi>{team or escape("No team")}</bdi></span>')
    out.append(
        f'<span class="state"><span aria-hidden="true">{escape(agent["icon"])}</span> '
        f"{escape(agent['label'])}"
    )
    if agent["changed_by"]:
        out.append(f' <span class="by">by <bdi>{escape(agent["changed_by"])}</bdi></span>')
    out.append('</span><button class="act" type="button" hidden aria-haspopup="dialog"')
    if call:
        out.append(f' data-call="{call_id}"')
    out.append(f'>Act<span class="visually-hidden"> on {name}</span></button>')
    if call:
        arrow = "↙ In" if call["direction"] == "inbound" else "↗ Out"
        out.append(
            f'<a class="call" href="{escape(call_url(call["id"]))}">{arrow} · '
            f"<bdi>{escape(call['campaign'])}</bdi> · "
            f'<span data-since="{escape(call["started_at"])}"></span></a>'
        )
    out.append("</div></div>\n")
    return "".join(out)


def monitor(m: dict, call_id: str) -> str:
    """One open monitoring session, as templates/live/_monitors.html writes it."""
    mode = escape(m["mode"])
    dialling = ", dialling" if m["state"] == "dialing" else ""
    return (
        f'<span class="monitored" data-session="{escape(m["session"])}" '
        f'data-supervisor="{escape(m["supervisor"])}" data-call="{call_id}" '
        f'data-mode="{mode}" data-state="{escape(m["state"])}" '
        f'data-started="{escape(m["since"])}">Listened by <bdi>{escape(m["name"])}</bdi> '
        f"({mode}{dialling})</span>"
    )

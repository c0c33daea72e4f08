"""A live call's row written by Python, exactly as templates/live/_call.html renders it.

The feed renders a row for every change of a call, and every call's row when it draws the
whole view again (a reload: thousands at 10,000 agents); Django's template engine took
some 70 us a row, twice a tile written here. The template stays the row's markup of
record: tests/live/test_tile.py renders both for varied calls (hostile names among
them) and requires the same bytes. Every value is escaped as the template's autoescaping
does (tile.py's `escape`).
"""

from dashboard.shared.templatetags.links import call_url

from .tile import escape, monitor


def call_row(call: dict) -> str:
    """The row of `call`, the context `Renderer.call_context` gives the template; its
    agent's page address is `agent_url` (the template's filter works it out again)."""
    call_id = escape(call["id"])
    arrow = "↙ Inbound" if call["direction"] == "inbound" else "↗ Outbound"
    out = [
        f'<li id="call-{call_id}" data-into="calls-list" data-team="{escape(call["team"])}"',
        " data-live" if call["live"] else "",
        f'><span><a href="{escape(call_url(call["id"]))}">{arrow}</a>',
        ' <span class="tag ai">AI</span>' if call["ai_handled"] else "",
        " · ",
    ]
    if call["agent_id"]:
        out.append(
            f'<a href="{escape(call["agent_url"])}"><bdi>{escape(call["agent_name"])}</bdi></a>'
        )
    else:
        out.append("<bdi>Unassigned</bdi>")
    out.append(
        f'</span><span class="num" data-since="{escape(call["started_at"])}"></span>'
        f'<span class="meta"><bdi>{escape(call["campaign"] or "No campaign")}</bdi> · '
        f"{escape(call['state_label'])}</span>"
        '<button class="act" type="button" hidden aria-haspopup="dialog">Monitor'
        '<span class="visually-hidden"> this call</span></button>'
    )
    if call["monitors"]:
        out.append('<span class="monitors">')
        out += [monitor(m, call_id) for m in call["monitors"]]
        out.append("\n</span>")  # the include's own last line break
    out.append("</li>\n")
    return "".join(out)

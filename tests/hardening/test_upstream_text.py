"""Text from the service is shown as text: cut to a length the layout holds, without the
direction overrides that would turn the page's text around, and isolated in <bdi>. Driven
through the real adapter: the simulator renames an agent, the live view shows it."""

import html
import re

from dashboard.testing.live_view import LiveSocket

EVIL = "\u202eevil\u202c" + "\u05d0" * 300  # an override, then 300 right-to-left letters


def test_an_agents_name_arrives_capped_isolated_and_without_overrides(dashboard_server, simulator):
    client = dashboard_server.signed_in_client(dashboard_server.add_user("sam", "supervisor"))
    agent = simulator.agents()[0]["agentId"]
    socket = LiveSocket(dashboard_server, client)
    socket.read_until(lambda v: v.agents)
    simulator.control("agent-status", agent_id=agent, status="paused", name=EVIL)
    pattern = re.compile(rf'<div id="agent-{re.escape(agent)}".*?</div>', re.S)

    def tile():
        for message in reversed(socket.messages):
            found = pattern.search(message)
            if found and "evil" in found.group(0):
                return found.group(0)
        return None

    socket.read_until(lambda v: tile() is not None)
    shown = html.unescape(tile())  # the feed sends non-ASCII as character references
    socket.close()
    assert "\u202e" not in shown and "\u202c" not in shown
    name = re.search(r'<a class="name" href="[^"]*" title="([^"]*)"><bdi>([^<]*)</bdi></a>', shown)
    assert name, shown
    assert name.group(1) == name.group(2)
    assert name.group(2).startswith("evil\u05d0") and len(name.group(2)) == 120
    assert name.group(2).endswith("\u2026")

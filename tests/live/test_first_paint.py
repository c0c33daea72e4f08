"""First paint comes from the server: the live view and a wallboard arrive with the floor as
it is, and their socket skips the snapshot of the version the page was rendered with."""

import re

import pytest

from dashboard.testing.links import create_link
from dashboard.testing.live_view import LiveSocket
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

WHOLE_VIEW = '<div id="agents" class="agents">'
VERSION = re.compile(r'ws-connect="/ws/(?:live|wallboard/[^/"]+)/\?v=(\d+)"')


@pytest.fixture(scope="module")
def still_floor(tmp_path_factory):
    """One still floor for the module (no push but the heartbeat): the tests read it, and
    the one change a test makes (an agent paused) is one no other test looks at."""
    simulator = start_simulator("--faults", "--seed", "7")
    simulator.control("pause")
    server = start_dashboard(
        simulator, tmp_path_factory.mktemp("first-paint"), people={"mia": "manager"}
    )
    try:
        server.wait_for_history()  # the fill's progress is pushed while it moves
        manager = server.signed_in_client("mia")
        wait_until(lambda: VERSION.search(manager.get("/").text), what="a first push")
        yield simulator, server, manager
    finally:
        server.stop()
        simulator.stop()


def test_the_live_view_arrives_with_the_floor_rendered_in(still_floor):
    sim, server, manager = still_floor
    page = manager.get("/").text
    for agent in sim.agents():
        assert f'id="agent-{agent["agentId"]}"' in page
    assert "Waiting for the live feed" not in page
    assert 'id="kpis"' in page and 'data-kind="available"' in page
    assert 'id="upstream" hidden data-state="connected"' in page  # not "connecting"
    assert VERSION.search(page)


def test_a_socket_opened_with_the_rendered_version_is_sent_no_snapshot(still_floor):
    sim, server, manager = still_floor
    # A page already following: the server keeps the pushes between the render and the join
    # (with no socket on the live view, a heartbeat there would leave only the whole view).
    keeper = LiveSocket(server, manager)
    assert WHOLE_VIEW in keeper.receive()
    version = VERSION.search(manager.get("/").text).group(1)
    same = LiveSocket(server, manager, f"/ws/live/?v={version}")
    older = LiveSocket(server, manager, f"/ws/live/?v={int(version) - 1}")
    plain = LiveSocket(server, manager)
    try:
        assert WHOLE_VIEW in plain.receive()
        first = same.receive(timeout=15)
        # the alert tray, sent with every snapshot or not, and What changed, pushed alone
        while 'id="alert-tray"' in first or first.lstrip().startswith('<div id="changed"'):
            first = same.receive(timeout=15)
        # the next push (a still floor's heartbeat, or its KPI strip counting up), not the view
        assert WHOLE_VIEW not in first and ('id="upstream"' in first or 'id="kpis"' in first)
        sim.control("agent-status", agent_id=sim.agents()[0]["agentId"], status="paused")
        # The pushes after each page's version follow; the older page is first caught up
        # with the frames it missed (or the whole view, beyond the hub's kept frames).
        agent = sim.agents()[0]["agentId"]
        paused = f'id="agent-{agent}" class="agent" data-into="agents" data-state="paused"'
        for ws in (same, older):
            frame = first if ws is same else older.receive(timeout=15)
            while paused not in frame:  # receive() fails after 15 s without a frame
                frame = ws.receive(timeout=15)
    finally:
        for ws in (same, older, plain, keeper):
            ws.close()


def test_a_kpi_only_wallboard_arrives_with_its_figures_and_nothing_else(still_floor):
    sim, server, manager = still_floor
    kpis = manager.get(create_link(manager, "Lobby TV", ["kpis"])).text
    assert 'id="kpis"' in kpis and 'data-kind="available"' in kpis
    for absent in ('id="agent-', 'id="call-', 'class="wb-qa"', sim.agents()[0]["name"]):
        assert absent not in kpis
    grid = manager.get(create_link(manager, "Floor TV", ["agents"])).text
    assert grid.count('class="agent"') == len(sim.agents())
    assert 'data-kind="available"' not in grid

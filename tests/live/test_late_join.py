"""A socket that joins the fan-out late, against `manage.py serve` over real sockets: a page
rendered with version V whose socket joins after pushes went out since V is written those
pushes (the same frames the sockets on time got), not a whole view; one whose version is
older than what the hub keeps is sent the whole view."""

import re

import pytest

from dashboard.testing.processes import wait_until
from dashboard.testing.raw_socket import RawSocket, Reading
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

WHOLE_VIEW = '<div id="agents" class="agents">'
OTHERS = ('<div id="alert-tray"', '<script id="chart-', '<p hidden id="why-src-')


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    sim = start_simulator("--agents", 200, "--events-per-second", 5, "--seed", 3)
    server = start_dashboard(sim, tmp_path_factory.mktemp("late"), people={"sup": "supervisor"})
    try:
        yield server
        assert "Traceback" not in server.log()
    finally:
        server.stop()
        sim.stop()


def rendered_version(server, http) -> int:
    """The version the live page was rendered with (its socket's `?v=`)."""
    return int(re.search(r'ws-connect="/ws/live/\?v=(\d+)', http.get("/").text)[1])


def is_push(text: str) -> bool:
    """A live push (or view), not the alert tray's or the charts' own messages."""
    return not text.startswith(OTHERS)


def pushes(ws: RawSocket, n: int) -> list[str]:
    out = []
    while len(out) < n:
        text = ws.text()
        if is_push(text):
            out.append(text)
    return out


def test_a_socket_that_joins_late_is_written_the_pushes_it_missed(server):
    http = server.signed_in_client("sup")
    cookie = "Cookie: " + server.session_cookie("sup")
    # Another screen of the same audience is open: the hub keeps its pushes from before the
    # page below was rendered.
    keeper = Reading(RawSocket(server.url, "/ws/live/", [cookie]))
    wait_until(lambda: sum(is_push(t) for _, t in keeper.frames) >= 2, 30, "2 pushes")
    version = rendered_version(server, http)
    path = f"/ws/live/?v={version}"
    on_time = Reading(RawSocket(server.url, path, [cookie]))
    wait_until(
        lambda: sum(is_push(t) for _, t in on_time.frames) >= 4, 30, "4 pushes after the page"
    )
    late = RawSocket(server.url, path, [cookie])  # the same page's socket, opened later
    got = pushes(late, 8)
    wait_until(lambda: sum(is_push(t) for _, t in on_time.frames) >= 8, 30, "8 pushes on time")
    expected = [t for _, t in on_time.stop() if is_push(t)][:8]
    # The missed pushes, then the live ones: the same frames, in order (a whole view only
    # where the feed sent every screen one, a reload of the service's state)
    assert [WHOLE_VIEW in t for t in got] == [WHOLE_VIEW in t for t in expected]
    assert got == expected
    assert any('id="agent-' in t for t in got)
    late.close()
    on_time.ws.close()
    keeper.stop()
    keeper.ws.close()
    http.close()


def test_a_socket_further_behind_than_the_history_is_sent_the_whole_view(server):
    http = server.signed_in_client("sup")
    cookie = "Cookie: " + server.session_cookie("sup")
    wait_until(lambda: rendered_version(server, http) > 3, 30, "a few pushes")
    follower = Reading(RawSocket(server.url, "/ws/live/", [cookie]))  # the hub keeps pushes
    wait_until(lambda: sum(is_push(t) for _, t in follower.frames) >= 3, 30, "3 pushes")
    stale = RawSocket(server.url, "/ws/live/?v=1", [cookie])  # long gone from the history
    assert WHOLE_VIEW in pushes(stale, 1)[0]
    follower.stop()
    follower.ws.close()
    stale.close()
    http.close()

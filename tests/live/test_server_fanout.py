"""The server's fan-out, driven over real sockets against `manage.py serve` with the
simulator in load mode (1,000 agents, 200 events/s): every socket gets the same frames in
order; a socket that stops reading is skipped, then resynced or closed; kiosk links are
sent only their panels; a restart closes sockets with 1012."""

import contextlib
import os
import re
import signal
import struct
import time

import httpx
import pytest

from dashboard.testing import httpclient
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.raw_socket import CLOSE, RawSocket, Reading
from dashboard.testing.servers import (
    DashboardServer,
    migrated_sqlite,
    start_dashboard,
    start_worker,
)
from dashboard.testing.simulator import start_simulator

# Room for this module's readers (Python, on a loaded machine), none for a stalled socket.
CAP = 512 * 1024
CLOSE_AFTER_S = 4
PEOPLE = {"sup": "supervisor"}  # every server here starts with them: `Live` signs in as sup
AGENT = re.compile(r'<div id="agent-([^"]+)" class="agent"[^>]*? data-seq="(\d+)"')
WHOLE_VIEW = '<div id="agents" class="agents">'
EMITTED = re.compile(r'data-emitted="(\d+)"')


class Live:
    def __init__(self, server):
        self.server = server
        self.cookie = "Cookie: " + server.session_cookie("sup")

    def socket(self, path="/ws/live/", **kwargs) -> RawSocket:
        return RawSocket(self.server.url, path, [self.cookie], **kwargs)

    def wait_for_log(self, text: str, since: int, timeout: float = 30) -> float:
        """Wait for `text` in what the server logged after offset `since`."""
        said = f"{text!r} in the log"
        wait_until(lambda: text in self.server.log()[since:], timeout, said, interval=0.05)
        return time.monotonic()

    def links(self, *panel_sets) -> list[str]:
        """Kiosk links made in the server's database, with these panels; their tokens."""
        code = (
            "from datetime import timedelta\n"
            "from django.utils import timezone\n"
            "from dashboard.wallboard.models import KioskLink\n"
            f"for panels in {list(map(list, panel_sets))!r}:\n"
            "    link = KioskLink.objects.create(name='TV', panels=panels,"
            " expires_at=timezone.now() + timedelta(days=1))\n"
            "    print('token', link.token)\n"
        )
        out = self.server.manage("shell", "-c", code)
        return re.findall(r"^token (\S+)$", out, re.M)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    sim = start_simulator("--agents", 1000, "--events-per-second", 200, "--faults", "--seed", 7)
    env = {"FANOUT_BUFFER_CAP_BYTES": str(CAP), "FANOUT_BEHIND_CLOSE_S": str(CLOSE_AFTER_S)}
    server = start_dashboard(sim, tmp_path_factory.mktemp("fanout"), env, people=PEOPLE)
    try:
        server.wait_for_history()  # the readers below are slow Python: not beside the fill
        yield Live(server)
        assert "is gone" not in server.log()  # no internal the fan-out relies on is missing
        assert "Traceback" not in server.log()
    finally:
        server.stop()
        sim.stop()


def frames(ws: RawSocket, n: int) -> list[str]:
    """The next `n` frames of the live pushes (a wallboard's alerts banner, its own group's
    message, left out)."""
    out = []
    while len(out) < n:
        text = ws.text()
        if not text.startswith('<div id="wb-alert-banner"'):
            out.append(text)
    return out


def texts(read: list) -> list[str]:
    """The texts of a `Reading`'s (time, text) frames."""
    return [text for _, text in list(read)]


def six_sockets_read_at_once(live) -> list[list[str]] | None:
    """What six sockets read over the same window, or None when the server skipped one of
    them: the test's own readers are slow Python, and one that fell behind the cap was
    skipped (the next test's subject), which would make the comparison unfair."""
    logged = len(live.server.log())
    sockets = [live.socket() for _ in range(6)]
    try:
        for ws in sockets:
            assert WHOLE_VIEW in ws.text()  # the snapshot first
        readers = [Reading(ws) for ws in sockets]  # each read as a browser does, all at once
        wait_until(lambda: len(readers[-1].frames) >= 25, 30, "25 frames on the last socket")
        got = [[text for _, text in reader.stop()] for reader in readers]
        return None if "unsent" in live.server.log()[logged:] else got
    finally:
        for ws in sockets:
            ws.close()


def test_every_socket_gets_the_same_frames_in_order(live):
    # A window again when the machine left one of our readers behind: on a loaded machine
    # (a browser test on the other core) that can last a while, so windows for two minutes.
    got = wait_until(
        lambda: six_sockets_read_at_once(live), 120, "a window with none of our readers skipped"
    )
    last = got[-1][5:20]
    for seen in got[:-1]:  # each connected earlier: from the last one's sixth frame on
        assert last[0] in seen, "a socket missed a frame the last one was sent"
        start = seen.index(last[0])
        assert seen[start : start + 15] == last, "a socket was sent other frames, or in order"
    newest = {}
    for frame in got[-1]:  # and within one socket, each agent's seq only grows
        for agent, seq in AGENT.findall(frame):
            assert int(seq) >= newest.get(agent, 0)
            newest[agent] = int(seq)
    assert len(newest) > 50


def test_a_socket_that_stops_reading_is_skipped_then_sent_the_whole_view(live):
    stalled = live.socket(rcvbuf=4096)
    assert WHOLE_VIEW in stalled.text()
    reader = Reading(live.socket())
    logged = len(live.server.log())
    live.wait_for_log("unsent; skipping its pushes", logged)  # the stalled one, over the cap
    skipped = time.time() * 1000
    # The reading socket is not held up by it: while the stalled one stays unread, it is
    # sent pushes of events emitted after the other was skipped (their tiles' own times,
    # not when this slow reader got round to them).
    wait_until(lambda: pushed_after(reader, skipped) >= 5, 30, "pushes to the reading socket")
    # what it was sent before, then the resync's snapshot
    wait_until(lambda: WHOLE_VIEW in stalled.text(), 10, "a whole view after draining", interval=0)
    assert WHOLE_VIEW not in stalled.text()  # then pushes again
    assert reader.is_alive()  # never closed
    reader.stop()
    reader.ws.close()  # unread from here, it would fall behind and be closed in the next test
    stalled.close()


def pushed_after(reader: Reading, since_ms: float) -> int:
    """The frames `reader` got that show an event emitted after `since_ms` (epoch ms)."""
    return sum(
        max(map(int, EMITTED.findall(text)), default=0) > since_ms
        for _, text in list(reader.frames)
    )


def test_a_socket_that_stays_behind_is_closed(live):
    stalled = live.socket(rcvbuf=4096)
    stalled.text()
    reader = Reading(live.socket())
    start = len(live.server.log())
    live.wait_for_log("unsent; skipping its pushes", start)
    live.wait_for_log(f"closing a socket that did not drain in {CLOSE_AFTER_S:g} s", start)
    assert live.server.log()[start:].count("closing a socket") == 1  # only the stalled one
    with pytest.raises(ConnectionError):  # reset, or the 1012 close if read in time
        while True:
            stalled.text()
    assert reader.is_alive() and len(reader.stop()) > 20
    reader.ws.close()


def test_kiosk_links_are_sent_their_panels_only_one_frame_per_panel_set(live):
    kpi_a, kpi_b, agents_qa = live.links(["kpis"], ["kpis"], ["agents", "qa"])
    screens = [live.socket(f"/ws/wallboard/{token}/") for token in (kpi_a, kpi_b, agents_qa)]
    for ws in screens:
        assert "data-build" in ws.text()
    kpi_view, kpi_view_b, board_view = (frames(ws, 1)[0] for ws in screens)
    assert 'id="kpis"' in kpi_view and 'id="kpis"' in kpi_view_b
    assert WHOLE_VIEW in board_view and 'id="wb-qa"' in board_view
    # The other screens are read as a browser does, all the while: unread, they would fall
    # behind the cap (and be closed) on a slow machine while the first one is read.
    reading, reading_b = Reading(screens[2]), Reading(screens[1])
    kpi = frames(screens[0], 15)
    wait_until(lambda: len(reading.frames) >= 15, 30, "15 frames on the agents' screen")
    wait_until(
        lambda: kpi[-1] in texts(reading_b.frames), 30, "the KPI frames on the other KPI screen"
    )
    board = [text for _, text in reading.stop()]
    seen_b = [kpi_view_b] + [
        t for t in texts(reading_b.stop()) if not t.startswith('<div id="wb-alert-banner"')
    ]
    # It may have connected a push or two later than the first (its snapshot then holds
    # them): from the first frame both were sent, the same frames, one audience. (A status
    # frame says the same each heartbeat: matched where the frames after it match too.)
    assert any(
        seen_b[start : start + 15 - first] == kpi[first:]
        for first in range(3)
        for start, frame in enumerate(seen_b)
        if frame == kpi[first]
    ), "the other KPI screen was sent other frames, or in another order"
    for frame in [kpi_view, *kpi]:
        assert 'id="kpis"' in frame or 'id="upstream"' in frame
        for absent in ('id="agent', 'id="call-', "calls-list", "queues-list", 'id="wb-'):
            assert absent not in frame
    assert any('id="agent-' in frame for frame in board)
    assert not any('id="call-' in frame or 'id="kpis"' in frame for frame in [board_view, *board])
    for ws in screens:
        ws.close()


def test_a_screen_is_written_nothing_when_nothing_it_shows_changed(live):
    """At 200 events/s the live view gets a frame each tick; a queues-only wallboard gets
    one when a queue figure or the status changes, and none that its view already has: it
    is never resynced (the pushes it was not written still advanced its version)."""
    [queues] = live.links(["queues"])
    board, floor = live.socket(f"/ws/wallboard/{queues}/"), live.socket()
    for ws in (board, floor):
        ws.text()  # the build's line, or the snapshot
    board.text()  # the wallboard's snapshot
    # Pushes between reading the snapshot and joining are written on joining (hub.py's
    # history): let them settle first.
    frames(floor, 10)
    quiet(board)
    started = time.monotonic()
    floor_frames = frames(floor, 40)
    elapsed = time.monotonic() - started
    board_frames = quiet(board)
    assert len(board_frames) < len(floor_frames) / 2, (len(board_frames), elapsed)
    # A whole view the feed sends every screen (the service's state reloaded) is no resync.
    reloads = sum(WHOLE_VIEW in frame for frame in floor_frames)
    whole = [f for f in board_frames if 'id="agent-' in f or '<ul id="queues-list"' in f]
    assert len(whole) <= reloads, (whole, reloads)
    for ws in (board, floor):
        ws.close()


def quiet(ws: RawSocket) -> list[str]:
    """The frames `ws` has been sent, read until none comes for 0.2 s."""
    timeout = ws.sock.gettimeout()
    ws.sock.settimeout(0.2)
    got = []
    with contextlib.suppress(TimeoutError):
        while True:
            got.append(ws.text())
    ws.sock.settimeout(timeout)
    return got


def closed_with(ws: RawSocket) -> int:
    opcode, payload = ws.frame()
    while opcode != CLOSE:
        opcode, payload = ws.frame()
    return struct.unpack("!H", payload[:2])[0]


def test_a_restart_closes_sockets_with_1012(simulator, tmp_path):
    """htmx's websocket extension reconnects after 1012 (autobahn's `sendClose` refuses it,
    so Daphne's path raised and the sockets were dropped without a close frame)."""
    server = start_dashboard(simulator, tmp_path, people=PEOPLE)
    try:
        ws = Live(server).socket()
        ws.text()
        server.stop()  # SIGTERM
        assert closed_with(ws) == 1012
    finally:
        server.stop()


def test_a_production_web_worker_serves_with_the_same_server(tmp_path):
    """`python -m dashboard.live.web` (docs/deploy.md): Daphne's command line, our server:
    the fan-out extension, body limits, and 1012 for its sockets when it stops."""
    port, database = free_port(), tmp_path / "web.sqlite3"
    env = {**os.environ, "REDIS_URL": "", "PORT": str(port)}
    env["DATABASE_URL"] = migrated_sqlite(database, PEOPLE)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    url = f"http://127.0.0.1:{port}"
    server = DashboardServer(url, env, start_worker(env, port), database)
    try:
        healthy = lambda: httpclient.get(f"{url}/healthz", timeout=1).status_code == 200  # noqa: E731
        wait_until(healthy, 30, "the web worker answers", ignoring=(httpx.HTTPError,))
        refused = httpx.post(
            f"{server.url}/webhooks/service/", content=b"x" * (2 * 1024 * 1024), timeout=10
        )
        assert refused.status_code == 413 and refused.text == "request body over the limit"
        ws = Live(server).socket()
        assert "waiting for the feed" in ws.text()  # no bridge here: nothing cached yet
        server.process.signal(signal.SIGTERM)
        assert closed_with(ws) == 1012
    finally:
        server.stop()

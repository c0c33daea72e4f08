"""The fault suite: one real dashboard process against one simulated tenant, disturbed by
each of the tenant's fault controls in turn.

After each fault: a browser connecting now is shown exactly the simulator's truth (agent
states and active calls, read over the simulator's REST API with its floor paused); a
browser that stayed connected was told the feed was stale while it was; both processes
are still up; and nothing secret reached the dashboard's log.
"""

import time
from dataclasses import dataclass

import httpx
import pytest

from dashboard.testing import OUTAGE_S
from dashboard.testing.live_view import LiveSocket, current_view, matches_truth
from dashboard.testing.processes import let_pass
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

WEBHOOK_SECRET = "e2e-webhook-secret"  # what start_dashboard configures
JWT_HEADER = "eyJhbGciOi"  # every token the simulator issues starts with it


@dataclass
class Floor:
    sim: object
    server: object
    client: httpx.Client

    def socket(self) -> LiveSocket:
        """A browser that is on the live view before the fault, and saw it healthy."""
        socket = LiveSocket(self.server, self.client)
        first = socket.read_until(lambda v: v.agents and v.upstream)
        assert first.upstream[-1][0] == "connected"
        return socket

    def ready(self) -> int:
        return httpx.get(f"{self.server.url}/readyz", timeout=10).status_code

    def logged(self, text, timeout=10.0) -> bool:
        return bool(self.server.process.wait_for_line(text, timeout))


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    sim = start_simulator("--faults", "--seed", "11")
    server = None
    try:
        server = start_dashboard(sim, tmp_path_factory.mktemp("faults"))
        client = server.signed_in_client(server.add_user("sam", "supervisor"))
        yield Floor(sim, server, client)
        client.close()
    finally:
        if server:
            server.stop()
        sim.stop()


@pytest.fixture(autouse=True)
def healthy_after(floor):
    """Every fault leaves both processes up, the dashboard answering, and the log clean."""
    yield
    assert floor.sim.process.running, floor.sim.log()
    assert floor.server.process.running, floor.server.log()
    assert httpx.get(f"{floor.server.url}/healthz", timeout=10).status_code == 200
    log = floor.server.log()
    for secret in (floor.sim.password, WEBHOOK_SECRET, JWT_HEADER):
        assert secret not in log
    assert "Traceback" not in log


def stale_then_live(socket: LiveSocket, timeout=60.0):
    """The open browser is told the feed is not live, then that it is live again."""
    socket.read_until(lambda v: any(state != "connected" for state, _ in v.upstream))
    socket.read_until(lambda v: v.upstream[-1][0] == "connected", timeout=timeout)


def test_it_follows_the_floor_before_any_fault(floor):
    view = matches_truth(floor.sim, floor.server, floor.client)
    assert len(view.agents) == 40
    assert floor.ready() == 200


def test_it_recovers_from_sockets_dropped_mid_stream(floor):
    socket = floor.socket()
    floor.sim.control("drop-sockets")
    stale_then_live(socket)
    socket.close()
    matches_truth(floor.sim, floor.server, floor.client)


@pytest.mark.timeout(180)
def test_it_says_stale_for_as_long_as_sockets_are_refused_then_recovers(floor):
    socket = floor.socket()
    floor.sim.control("refuse-sockets", seconds=OUTAGE_S)  # TEST_OUTAGE_S
    floor.sim.control("drop-sockets")
    started = time.monotonic()
    socket.read_until(lambda v: any(state != "connected" for state, _ in v.upstream))
    for at in (
        OUTAGE_S / 3,
        OUTAGE_S * 5 / 6,
    ):  # one arriving mid-outage is told too, as is /readyz
        let_pass(started + at - time.monotonic(), "to this moment of the outage")
        assert current_view(floor.server, floor.client).upstream[-1][0] != "connected"
        assert floor.ready() == 503
    socket.read_until(lambda v: v.upstream[-1][0] == "connected", timeout=90)
    socket.close()
    matches_truth(floor.sim, floor.server, floor.client)


def test_after_a_long_outage_the_next_drop_is_retried_at_once(floor):
    """The reconnect backoff starts afresh once a session was live again: one drop after a
    long outage must not wait out the backoff the outage grew (8 s or more after 12 s of
    refusals, 15 s or more after 30 s), so it must be live again within OUTAGE_S / 2."""
    socket = floor.socket()
    floor.sim.control("drop-sockets")
    stale_then_live(socket, timeout=min(10, OUTAGE_S / 2))
    socket.close()


@pytest.mark.parametrize(("status", "retry_after"), [(500, 0), (429, 1)])
def test_it_rides_out_a_burst_of_rest_errors_during_a_reload(floor, status, retry_after):
    socket = floor.socket()
    floor.sim.control("rest-errors", status=status, seconds=3, retry_after=retry_after)
    floor.sim.control("drop-sockets")  # the reconnect reloads over REST, into the errors
    stale_then_live(socket)
    socket.close()
    matches_truth(floor.sim, floor.server, floor.client)


def test_it_renews_when_every_access_token_expires(floor):
    socket = floor.socket()
    floor.sim.control("expire-access-tokens")
    floor.sim.control("drop-sockets")  # the reconnect presents the expired token first
    stale_then_live(socket)
    socket.close()
    matches_truth(floor.sim, floor.server, floor.client)


def test_it_signs_in_again_when_every_refresh_token_is_revoked(floor):
    socket = floor.socket()
    floor.sim.control("revoke-refresh-tokens")
    floor.sim.control("expire-access-tokens")
    floor.sim.control("drop-sockets")
    stale_then_live(socket)
    socket.close()
    assert floor.logged("refresh token refused; signing in again")
    matches_truth(floor.sim, floor.server, floor.client)


def test_it_says_stale_while_the_auth_provider_is_down_then_recovers(floor):
    socket = floor.socket()
    floor.sim.control("auth-down", seconds=8)
    floor.sim.control("expire-access-tokens")
    floor.sim.control("revoke-refresh-tokens")
    floor.sim.control("drop-sockets")
    socket.read_until(lambda v: any(state != "connected" for state, _ in v.upstream))
    assert floor.logged("auth provider unavailable")
    assert floor.ready() == 503
    socket.read_until(lambda v: v.upstream[-1][0] == "connected", timeout=60)
    socket.close()
    matches_truth(floor.sim, floor.server, floor.client)


def test_it_reloads_on_a_skipped_seq(floor):
    socket = floor.socket()
    agent = floor.sim.agents()[1]["agentId"]
    for status in ("offline", "paused"):  # the first sets the seq the second must follow
        floor.sim.control("agent-status", agent_id=agent, status=status)
        socket.read_until(lambda v, status=status: v.agents[agent] == status)
        if status == "offline":
            floor.sim.control("skip-seq")
    assert floor.logged("seq gap")
    socket.close()
    matches_truth(floor.sim, floor.server, floor.client)


def test_it_skips_a_malformed_event_and_stays_live(floor):
    socket = floor.socket()
    floor.sim.control("malformed-event")
    assert floor.logged("malformed agent.status event skipped")
    agent = floor.sim.agents()[0]["agentId"]
    status = "offline" if floor.sim.agents()[0]["status"] == "paused" else "paused"
    floor.sim.control("agent-status", agent_id=agent, status=status)
    socket.read_until(lambda v: v.agents[agent] == status)  # the next event still gets through
    socket.close()
    matches_truth(floor.sim, floor.server, floor.client)


def test_it_drops_another_organisations_event(floor):
    floor.sim.control("pause")
    try:
        let_pass(0.5, "the events sent before the pause arrive first")
        floor.sim.control("foreign-event")
        assert floor.logged("event of another organisation dropped")
    finally:
        floor.sim.control("resume")
    view = matches_truth(floor.sim, floor.server, floor.client)
    assert set(view.agents) == {a["agentId"] for a in floor.sim.agents()}

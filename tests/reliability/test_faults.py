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
from dashboard.testing.servers import dashboard_on
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
def faulty_floor(tmp_path_factory):
    sim = start_simulator("--faults", "--seed", "11")
    with dashboard_on(
        sim, tmp_path_factory.mktemp("faults"), people={"sam": "supervisor"}
    ) as server:
        client = server.signed_in_client("sam")
        yield Floor(sim, server, client)
        client.close()


@pytest.fixture(autouse=True)
def healthy_after(faulty_floor):
    """Every fault leaves both processes up, the dashboard answering, and the log clean."""
    yield
    assert faulty_floor.sim.process.running, faulty_floor.sim.log()
    assert faulty_floor.server.process.running, faulty_floor.server.log()
    assert httpx.get(f"{faulty_floor.server.url}/healthz", timeout=10).status_code == 200
    log = faulty_floor.server.log()
    for secret in (faulty_floor.sim.password, WEBHOOK_SECRET, JWT_HEADER):
        assert secret not in log
    assert "Traceback" not in log


def stale_then_live(socket: LiveSocket, timeout=60.0):
    """The open browser is told the feed is not live, then that it is live again."""
    socket.read_until(lambda v: any(state != "connected" for state, _ in v.upstream))
    socket.read_until(lambda v: v.upstream[-1][0] == "connected", timeout=timeout)


def test_it_follows_the_floor_before_any_fault(faulty_floor):
    view = matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)
    assert len(view.agents) == 40
    assert faulty_floor.ready() == 200


def test_it_recovers_from_sockets_dropped_mid_stream(faulty_floor):
    socket = faulty_floor.socket()
    faulty_floor.sim.control("drop-sockets")
    stale_then_live(socket)
    socket.close()
    matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)


@pytest.mark.timeout(180)
def test_it_says_stale_for_as_long_as_sockets_are_refused_then_recovers(faulty_floor):
    socket = faulty_floor.socket()
    faulty_floor.sim.control("refuse-sockets", seconds=OUTAGE_S)  # TEST_OUTAGE_S
    faulty_floor.sim.control("drop-sockets")
    started = time.monotonic()
    socket.read_until(lambda v: any(state != "connected" for state, _ in v.upstream))
    for at in (
        OUTAGE_S / 3,
        OUTAGE_S * 5 / 6,
    ):  # one arriving mid-outage is told too, as is /readyz
        let_pass(started + at - time.monotonic(), "to this moment of the outage")
        assert current_view(faulty_floor.server, faulty_floor.client).upstream[-1][0] != "connected"
        assert faulty_floor.ready() == 503
    socket.read_until(lambda v: v.upstream[-1][0] == "connected", timeout=90)
    socket.close()
    matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)


def test_after_a_long_outage_the_next_drop_is_retried_at_once(faulty_floor):
    """The reconnect backoff starts afresh once a session was live again: one drop after a
    long outage must not wait out the backoff the outage grew (8 s or more after 12 s of
    refusals, 15 s or more after 30 s), so it must be live again within OUTAGE_S / 2."""
    socket = faulty_floor.socket()
    faulty_floor.sim.control("drop-sockets")
    stale_then_live(socket, timeout=min(10, OUTAGE_S / 2))
    socket.close()


@pytest.mark.parametrize(("status", "retry_after"), [(500, 0), (429, 1)])
def test_it_rides_out_a_burst_of_rest_errors_during_a_reload(faulty_floor, status, retry_after):
    socket = faulty_floor.socket()
    faulty_floor.sim.control("rest-errors", status=status, seconds=3, retry_after=retry_after)
    faulty_floor.sim.control("drop-sockets")  # the reconnect reloads over REST, into the errors
    stale_then_live(socket)
    socket.close()
    matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)


def test_it_renews_when_every_access_token_expires(faulty_floor):
    socket = faulty_floor.socket()
    faulty_floor.sim.control("expire-access-tokens")
    faulty_floor.sim.control("drop-sockets")  # the reconnect presents the expired token first
    stale_then_live(socket)
    socket.close()
    matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)


def test_it_signs_in_again_when_every_refresh_token_is_revoked(faulty_floor):
    socket = faulty_floor.socket()
    faulty_floor.sim.control("revoke-refresh-tokens")
    faulty_floor.sim.control("expire-access-tokens")
    faulty_floor.sim.control("drop-sockets")
    stale_then_live(socket)
    socket.close()
    assert faulty_floor.logged("refresh token refused; signing in again")
    matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)


def test_it_says_stale_while_the_auth_provider_is_down_then_recovers(faulty_floor):
    socket = faulty_floor.socket()
    faulty_floor.sim.control("auth-down", seconds=8)
    faulty_floor.sim.control("expire-access-tokens")
    faulty_floor.sim.control("revoke-refresh-tokens")
    faulty_floor.sim.control("drop-sockets")
    socket.read_until(lambda v: any(state != "connected" for state, _ in v.upstream))
    assert faulty_floor.logged("auth provider unavailable")
    assert faulty_floor.ready() == 503
    socket.read_until(lambda v: v.upstream[-1][0] == "connected", timeout=60)
    socket.close()
    matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)


def test_it_reloads_on_a_skipped_seq(faulty_floor):
    socket = faulty_floor.socket()
    agent = faulty_floor.sim.agents()[1]["agentId"]
    for status in ("offline", "paused"):  # the first sets the seq the second must follow
        faulty_floor.sim.control("agent-status", agent_id=agent, status=status)
        socket.read_until(lambda v, status=status: v.agents[agent] == status)
        if status == "offline":
            faulty_floor.sim.control("skip-seq")
    assert faulty_floor.logged("seq gap")
    socket.close()
    matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)


def test_it_skips_a_malformed_event_and_stays_live(faulty_floor):
    socket = faulty_floor.socket()
    faulty_floor.sim.control("malformed-event")
    assert faulty_floor.logged("malformed agent.status event skipped")
    agent = faulty_floor.sim.agents()[0]["agentId"]
    status = "offline" if faulty_floor.sim.agents()[0]["status"] == "paused" else "paused"
    faulty_floor.sim.control("agent-status", agent_id=agent, status=status)
    socket.read_until(lambda v: v.agents[agent] == status)  # the next event still gets through
    socket.close()
    matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)


def test_it_drops_another_organisations_event(faulty_floor):
    faulty_floor.sim.control("pause")
    try:
        let_pass(0.5, "the events sent before the pause arrive first")
        faulty_floor.sim.control("foreign-event")
        assert faulty_floor.logged("event of another organisation dropped")
    finally:
        faulty_floor.sim.control("resume")
    view = matches_truth(faulty_floor.sim, faulty_floor.server, faulty_floor.client)
    assert set(view.agents) == {a["agentId"] for a in faulty_floor.sim.agents()}

"""The adapter's pieces wired to a simulated tenant, as the bridge wires them."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from dashboard.live.state import LiveState
from dashboard.upstream.auth import AuthSession
from dashboard.upstream.realtime import Bridge
from dashboard.upstream.rest import RestClient


def session_for(sim, client, *, email=None, password=None, anon_key=None, max_backoff=1.0):
    return AuthSession(
        sim.auth_url,
        anon_key or sim.anon_key,
        email or sim.email_a,
        password or sim.password,
        client,
        max_backoff=max_backoff,
    )


class StateSink:
    """The bridge's sink backed by the real live state, remembering what it was given."""

    def __init__(self):
        self.state = LiveState(ZoneInfo("UTC"))
        self.seqs: list[int] = []
        self.statuses: list[tuple[str, str]] = []
        self.snapshots = 0

    def snapshot(self, agents, calls):
        self.snapshots += 1
        self.state.load_snapshot(agents, calls, datetime.now(UTC))

    def event(self, event):
        self.seqs.append(event.seq)
        self.state.apply(event)

    def status(self, state, reason=""):
        self.statuses.append((state, reason))

    def notice(self, event):
        """A voicemail event: the bridge hands it to `on_notice`, not to the live state."""
        self.seqs.append(event.seq)


def bridge_for(sim, client, sink, **session_options):
    session = session_for(sim, client, **session_options)
    rest = RestClient(sim.base_url, session, client, max_backoff=0.5)
    bridge = Bridge(
        sim.auth_url,
        session,
        rest,
        sink,
        max_backoff=0.5,
        config_backoff=1.0,
        on_notice=getattr(sink, "notice", None),
    )
    return bridge, rest


def truth(sim):
    """Agent statuses and active call ids, as the simulator's REST API tells them."""
    token = sim.sign_in()["access_token"]
    agents = {a["agentId"]: a["status"] for a in sim.get("/agent-status", token).json()}
    calls = {x["id"] for x in sim.get("/calls", token, status="active").json()["data"]}
    return agents, calls


def seen(sink):
    return ({a: x.status for a, x in sink.state.agents.items()}, set(sink.state.calls))

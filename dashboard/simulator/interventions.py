"""Interventions (contract 6.1): monitoring sessions on live calls, and agent states set by
a supervisor.

The service rings the supervisor's own phone and bridges it into the call: here a session
goes `dialing`, then `connected` a moment later, and `ended` when the call ends or it is
hung up; each change is a `call.monitor` event, the only truth about it. A pause asked
while the agent is busy is kept as `pendingStatus` and taken when the wrap-up ends
(`ContactCentre.set_status`).
"""

import asyncio
import re
import time
import uuid
from dataclasses import dataclass

from .clock import iso

MODES = ("listen", "whisper", "barge")
STATUSES = ("available", "paused", "offline")
BUSY = ("ringing", "on_call", "wrap_up")
DIAL = re.compile(r"^(\+[1-9]\d{6,14}|sip:[^@\s]+@[^@\s]+)$")
CONNECT_AFTER_S = 0.3  # the supervisor's phone answers this long after it is rung


@dataclass
class Session:
    id: str
    org: str
    call_id: str
    supervisor_id: str
    supervisor_name: str
    mode: str
    dial: str
    state: str
    started: float

    def rest(self):
        return {
            "session_id": self.id,
            "call_id": self.call_id,
            "mode": self.mode,
            "state": self.state,
            "started_at": iso(self.started),
        }

    def event(self):
        return {
            "call_id": self.call_id,
            "session_id": self.id,
            "supervisor_id": self.supervisor_id,
            "supervisor_name": self.supervisor_name,
            "mode": self.mode,
            "state": self.state,
            "at": iso(time.time()),
        }


class FloorControl:
    """The sessions of every organisation, and the test controls' faults."""

    def __init__(self, sim):
        self.sim = sim
        self.sessions: dict[str, Session] = {}
        self.fault = {"status": 0, "delay_s": 0.0, "until": 0.0, "group": ""}
        self.tasks: set[asyncio.Task] = set()

    async def gate(self, group: str, method: str, path: str):
        """An injected fault for this group: a slow answer, or an error status for its path."""
        f = self.fault
        if time.time() >= f["until"] or f["group"] not in ("", group):
            return
        if f["delay_s"]:
            await asyncio.sleep(f["delay_s"])
        status = f["status"]
        if status in (404, 405):
            code = "not_found" if status == 404 else "method_not_allowed"
            raise _error(status, code, f"No route for {method} /api{path}")
        if status:
            raise _error(status, "unavailable", "Injected fault")

    def open_of(self, call_id: str):
        return [s for s in self.sessions.values() if s.call_id == call_id and s.state != "ended"]

    async def emit(self, session: Session):
        await self.sim.send(session.org, "call.monitor", session.event())

    def connect_later(self, session: Session):
        async def answer():
            await asyncio.sleep(CONNECT_AFTER_S)
            if session.state == "dialing":
                session.state = "connected"
                await self.emit(session)

        task = asyncio.ensure_future(answer())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def end(self, session: Session):
        if session.state != "ended":
            session.state = "ended"
            await self.emit(session)

    async def call_ended(self, call_id: str):
        """Ending the call ends its sessions."""
        for session in self.open_of(call_id):
            await self.end(session)


# ---- REST handlers (Simulator.api calls them as handler(sim, request, *args)) -------------
async def start_monitor(sim, r, call_id):
    await sim.floor.gate("monitor", "POST", f"/calls/{call_id}/monitor")
    data = _json(r.body)
    mode, dial = data.get("mode"), data.get("dial")
    supervisor_id, name = data.get("supervisor_id"), data.get("supervisor_name")
    if mode not in MODES:
        raise _error(422, "invalid_mode", f"mode must be one of {', '.join(MODES)}")
    if not isinstance(supervisor_id, str) or not supervisor_id:
        raise _error(422, "invalid_request", "supervisor_id is required")
    if not isinstance(dial, str) or not DIAL.match(dial):
        raise _error(422, "invalid_dial", "dial must be an E.164 number or a sip: URI")
    call = r.centre.calls.get(call_id)
    if call is None and call_id not in r.centre.history:
        raise _error(404, "no_such_call", "No such call")
    if call is None or call.state != "in_progress":
        raise _error(409, "call_not_live", "The call has ended or is not connected yet")
    floor = sim.floor
    mine = [s for s in floor.open_of(call_id) if s.supervisor_id == supervisor_id]
    if mine:
        raise _reply(
            409,
            {
                "error": "already_monitored",
                "session_id": mine[0].id,
                "message": "This supervisor already has a session on this call",
            },
        )
    session = Session(
        str(uuid.uuid4()),
        r.org,
        call_id,
        supervisor_id,
        name if isinstance(name, str) and name else supervisor_id,
        mode,
        dial,
        "dialing",
        time.time(),
    )
    floor.sessions[session.id] = session
    await floor.emit(session)
    floor.connect_later(session)
    return 201, session.rest(), {}


def _session(sim, r, call_id, session_id) -> Session:
    session = sim.floor.sessions.get(session_id)
    if session is None or session.org != r.org or session.call_id != call_id:
        raise _error(404, "no_such_session", "No such monitoring session")
    return session


async def switch_monitor(sim, r, call_id, session_id):
    await sim.floor.gate("monitor", "PATCH", f"/calls/{call_id}/monitor/{session_id}")
    session = _session(sim, r, call_id, session_id)
    mode = _json(r.body).get("mode")
    if mode not in MODES:
        raise _error(422, "invalid_mode", f"mode must be one of {', '.join(MODES)}")
    if session.state == "ended":
        raise _error(409, "session_ended", "This monitoring session has ended")
    if mode != session.mode:
        session.mode = mode
        await sim.floor.emit(session)
    return 200, session.rest(), {}


async def end_monitor(sim, r, call_id, session_id):
    await sim.floor.gate("monitor", "DELETE", f"/calls/{call_id}/monitor/{session_id}")
    await sim.floor.end(_session(sim, r, call_id, session_id))
    return 204, b"", {}


async def set_agent_status(sim, r, agent_id):
    await sim.floor.gate("agent-status", "PATCH", f"/agent-status/{agent_id}")
    data = _json(r.body)
    status, by = data.get("status"), data.get("requestedBy")
    if status not in STATUSES:
        raise _error(422, "invalid_status", f"status must be one of {', '.join(STATUSES)}")
    agent = r.centre.agents.get(agent_id)
    if agent is None:
        raise _error(404, "no_such_agent", "No such agent")
    by = by if isinstance(by, str) and by else None
    centre = r.centre
    centre.now = time.time()
    if agent.status in BUSY:
        if status != "paused":
            raise _error(409, "agent_busy", f"The agent is {agent.status.replace('_', ' ')}")
        agent.pending_status, agent.pending_by = "paused", by
    else:
        agent.pending_status = agent.pending_by = None
        agent.status, agent.since, agent.call_id = status, centre.now, None
        agent.changed_by = by
        agent.until = centre.now + 3600  # stays so until someone (or much later the model) moves it
    kind, payload = agent.event()
    await sim.send(r.org, kind, payload)
    return 200, agent.rest(), {}


def _error(status, code, message):
    from .app import error

    return error(status, code, message)


def _reply(status, body):
    from .app import Reply

    return Reply(status, body)


def _json(body: bytes) -> dict:
    from .app import parse_json

    return parse_json(body)


API = {
    ("POST", "calls/*/monitor"): start_monitor,
    ("PATCH", "calls/*/monitor/*"): switch_monitor,
    ("DELETE", "calls/*/monitor/*"): end_monitor,
    ("PATCH", "agent-status/*"): set_agent_status,
}


# ---- Test controls (`/_control/...`, with --faults) -----------------------------------
async def control_interventions(sim, data):
    """The simulator's truth: every session, and each agent's state, pending state and who
    set it (organisation A)."""
    from .tenants import ORG_A

    return {
        "sessions": [
            {**s.rest(), "supervisor_id": s.supervisor_id, "dial": s.dial}
            for s in sim.floor.sessions.values()
            if s.org == ORG_A
        ],
        "agents": {
            a.id: {
                "status": a.status,
                "pending_status": a.pending_status,
                "changed_by": a.changed_by,
                "call_id": a.call_id,
            }
            for a in sim.centres[ORG_A].agents.values()
        },
    }


async def control_intervention_fault(sim, data):
    """`status` (an error for every request of the group, 404/405 as a service without
    it), `delay_s` (a slow answer), for `seconds`; `group`: "monitor", "agent-status" or
    both (absent)."""
    status, delay = data.get("status", 0), data.get("delay_s", 0)
    group = data.get("group", "")
    if (
        type(status) is not int
        or type(delay) not in (int, float)
        or group
        not in (
            "",
            "monitor",
            "agent-status",
        )
    ):
        raise _error(400, "bad_request", "status (int), delay_s, seconds, group needed")
    sim.floor.fault = {
        "status": status,
        "delay_s": float(delay),
        "until": time.time() + float(data.get("seconds", 10)),
        "group": group,
    }


async def control_start_call(sim, data):
    """Put an agent of organisation A on a connected call that stays until ended; the call."""
    from .tenants import ORG_A

    centre = sim.centres[ORG_A]
    agent = centre.agents.get(data.get("agent_id"))
    if agent is None:
        raise _error(400, "bad_request", "agent_id of organisation A needed")
    centre.now = time.time()
    events = []
    old = centre.calls.get(agent.call_id or "")
    if old:
        events += centre._end_call(old)
    events += centre._start_call(agent, None, "inbound")
    call = centre.calls[agent.call_id]
    call.state = "in_progress"
    events.append(centre.set_status(agent, "on_call", call.id))
    events.append(
        ("call.updated", {"call_id": call.id, "state": "in_progress", "agent_id": agent.id})
    )
    agent.until = centre.now + 3600
    for kind, payload in events:
        await sim.send(ORG_A, kind, payload)
    return {"call_id": call.id}


async def control_end_call(sim, data):
    """End a call of organisation A now; its agent goes to wrap-up, and stays there for
    `wrap_up_s` (default 1)."""
    from .tenants import ORG_A

    centre = sim.centres[ORG_A]
    call = centre.calls.get(data.get("call_id"))
    if call is None:
        raise _error(400, "bad_request", "call_id of a live call of organisation A needed")
    centre.now = time.time()
    events = centre._end_call(call)
    agent = centre.agents.get(call.agent_id or "")
    if agent:
        agent.until = centre.now + float(data.get("wrap_up_s", 1))
    for kind, payload in events:
        await sim.send(ORG_A, kind, payload)


async def control_coaching_alert_on_call(sim, data):
    """A coaching alert raised now on a live call of organisation A (delivered as the
    `coaching_alert` webhook); the alert."""
    from .tenants import ORG_A

    centre = sim.centres[ORG_A]
    call = centre.calls.get(data.get("call_id"))
    if call is None or not call.agent_id:
        raise _error(400, "bad_request", "call_id of a live call with an agent needed")
    alert = centre.alert_data(call)
    return {"deliveries": await sim.deliver(ORG_A, [("coaching_alert", alert)]), "data": alert}


CONTROLS = {
    ("GET", "interventions"): control_interventions,
    ("POST", "intervention-fault"): control_intervention_fault,
    ("POST", "start-call"): control_start_call,
    ("POST", "end-call"): control_end_call,
    ("POST", "coaching-alert-on-call"): control_coaching_alert_on_call,
}

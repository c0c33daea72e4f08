"""The simulated tenant's side of interventions (contract 6.1), over its own sockets: the
dashboard's tests assert against this truth, so it must hold by itself."""

import httpx
import pytest

from dashboard.testing.processes import wait_until
from dashboard.testing.simulator import start_simulator


@pytest.fixture(scope="module")
def sim():
    sim = start_simulator("--faults", "--agents", "8")
    yield sim
    sim.stop()


@pytest.fixture(scope="module")
def token(sim):
    return sim.sign_in()["access_token"]


def api(sim, token, method, path, **body):
    return httpx.request(
        method,
        f"{sim.base_url}{path}",
        headers={"Authorization": f"Bearer {token}"},
        json=body or None,
        timeout=10,
    )


def truth(sim):
    return httpx.get(f"{sim.control_url}/interventions", timeout=10).json()


def session_state(sim, session_id):
    return next(s for s in truth(sim)["sessions"] if s["session_id"] == session_id)["state"]


def test_a_session_dials_connects_switches_and_ends_with_the_call(sim, token):
    agent = sim.agents()[0]["agentId"]
    call = sim.control("start-call", agent_id=agent)["call_id"]
    ask = {"mode": "listen", "supervisor_id": "7", "supervisor_name": "Ana"}
    assert api(sim, token, "POST", f"/calls/{call}/monitor", **ask, dial="0712").status_code == 422
    r = api(sim, token, "POST", f"/calls/{call}/monitor", **ask, dial="+447700900123")
    assert r.status_code == 201 and r.json()["state"] == "dialing"
    sid = r.json()["session_id"]
    wait_until(lambda: session_state(sim, sid) == "connected", 10, "the supervisor's phone")
    again = api(sim, token, "POST", f"/calls/{call}/monitor", **ask, dial="sip:ana@pbx.local")
    assert again.status_code == 409 and again.json()["error"] == "already_monitored"
    other = {**ask, "supervisor_id": "8", "dial": "sip:ben@pbx.local"}
    assert api(sim, token, "POST", f"/calls/{call}/monitor", **other).status_code == 201
    switched = api(sim, token, "PATCH", f"/calls/{call}/monitor/{sid}", mode="whisper")
    assert switched.status_code == 200 and switched.json()["mode"] == "whisper"
    sim.control("end-call", call_id=call)
    assert {s["state"] for s in truth(sim)["sessions"] if s["call_id"] == call} == {"ended"}
    late = api(sim, token, "POST", f"/calls/{call}/monitor", **ask, dial="+447700900123")
    assert late.status_code == 409 and late.json()["error"] == "call_not_live"


def test_a_pause_during_a_call_waits_for_the_wrap_up(sim, token):
    agent = sim.agents()[1]["agentId"]
    call = sim.control("start-call", agent_id=agent)["call_id"]
    busy = api(sim, token, "PATCH", f"/agent-status/{agent}", status="offline")
    assert busy.status_code == 409 and busy.json()["error"] == "agent_busy"
    r = api(sim, token, "PATCH", f"/agent-status/{agent}", status="paused", requestedBy="Ana")
    assert r.status_code == 200 and r.json()["pendingStatus"] == "paused"
    assert truth(sim)["agents"][agent]["status"] == "on_call"
    sim.control("end-call", call_id=call, wrap_up_s=0.5)
    wait_until(
        lambda: (
            truth(sim)["agents"][agent] | {"call_id": None}
            == {"status": "paused", "pending_status": None, "changed_by": "Ana", "call_id": None}
        ),
        10,
        "the pause after the wrap-up",
    )
    r = api(sim, token, "PATCH", f"/agent-status/{agent}", status="available", requestedBy="Bo")
    assert r.json()["status"] == "available" and r.json()["changedBy"] == "Bo"


def test_faults_answer_for_the_whole_group(sim, token):
    agent = sim.agents()[2]["agentId"]
    sim.control("intervention-fault", status=404, group="agent-status", seconds=30)
    try:
        assert (
            api(sim, token, "PATCH", f"/agent-status/{agent}", status="paused").status_code == 404
        )
        assert api(sim, token, "GET", "/agent-status").status_code == 200
    finally:
        sim.control("intervention-fault", status=0, seconds=0)
    assert api(sim, token, "PATCH", f"/agent-status/{agent}", status="paused").status_code == 200

"""Acting on the floor in tests: the simulator's truth about monitoring sessions and agent
states, a live call held for a test, and POSTs as the pages' script sends them."""

from contextlib import closing

import httpx

from . import httpclient as plain  # the harness's requests; `http` names a client here
from .processes import wait_until


def truth(sim) -> dict:
    """The simulator's own record: its sessions and each agent's state."""
    return plain.get(f"{sim.control_url}/interventions", timeout=10).json()


def sessions_on(sim, call_id) -> list[dict]:
    return [s for s in truth(sim)["sessions"] if s["call_id"] == call_id]


def live_call(sim, server, agent_index=0) -> tuple[str, dict]:
    """A connected call of an agent, held until ended, once the dashboard shows it; (call
    id, the agent as the simulator has it)."""
    agent = sim.agents()[agent_index]
    call_id = sim.control("start-call", agent_id=agent["agentId"])["call_id"]
    with closing(server.signed_in_client("mia")) as http:
        wait_until(lambda: f"call-{call_id}" in http.get("/").text, 20, "the call on the floor")
    return call_id, agent


def post(http: httpx.Client, path: str, **data) -> httpx.Response:
    """POST as the page's script does: the CSRF token, JSON asked for."""
    return http.post(
        path,
        data=data,
        headers={"X-CSRFToken": http.cookies["csrftoken"], "Accept": "application/json"},
    )


def user_id(server, username) -> str:
    """The dashboard's id of a person: what it tells the service as `supervisor_id`."""
    code = (
        "from django.contrib.auth.models import User; "
        f"print(User.objects.get(username={username!r}).pk)"
    )
    return server.manage("shell", "-c", code).split()[-1]


def behind_the_back(sim, call_id, supervisor_id):
    """A session started on the service directly (another tool, another tab)."""
    token = sim.sign_in()["access_token"]
    plain.post(
        f"{sim.base_url}/calls/{call_id}/monitor",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "mode": "listen",
            "supervisor_id": supervisor_id,
            "supervisor_name": "elsewhere",
            "dial": "+447700900111",
        },
        timeout=10,
    ).raise_for_status()

"""Setting an agent's state, the roles and "my floor", and every refusal, through the
dashboard's endpoints against the simulated tenant; the simulator's truth and the audit
are what is asserted."""

import re
from contextlib import closing

import httpx

from dashboard.testing.interventions import live_call, post, sessions_on, truth
from dashboard.testing.processes import wait_until


def tile(http, agent_id) -> str:
    """The agent's tile as the live view serves it now."""
    page = re.sub(r"\s+", " ", http.get("/").text)
    found = re.search(rf'<div id="agent-{agent_id}".*?</div></div>', page)
    return found.group(0) if found else ""


def test_a_pause_during_a_call_is_pending_then_taken_and_the_tile_says_who(served):
    sim, server = served
    call_id, agent = live_call(sim, server, 2)
    agent_id = agent["agentId"]
    with closing(server.signed_in_client("bob")) as bob:
        busy = post(bob, f"/agents/{agent_id}/state/", status="available")
        assert busy.status_code == 409 and "busy with a call" in busy.json()["message"]
        r = post(bob, f"/agents/{agent_id}/state/", status="paused", reason="Coaching")
        assert r.json()["ok"] and "after this call and its wrap-up" in r.json()["message"]
        assert r.json()["agent"]["pending_status"] == "paused"
        assert truth(sim)["agents"][agent_id]["status"] == "on_call"
        wait_until(lambda: "Pause pending" in tile(bob, agent_id), 10, "pause pending on the tile")
        sim.control("end-call", call_id=call_id, wrap_up_s=0.5)
        wait_until(
            lambda: truth(sim)["agents"][agent_id]["status"] == "paused", 10, "the pause taken"
        )
        assert truth(sim)["agents"][agent_id]["changed_by"] == "bob"
        wait_until(
            lambda: (
                'data-state="paused"' in tile(bob, agent_id)
                and "by <bdi>bob</bdi>" in tile(bob, agent_id)
                and "Pause pending" not in tile(bob, agent_id)
            ),
            10,
            "the paused tile, set by bob",
        )
        r = post(bob, f"/agents/{agent_id}/state/", status="available")
        assert r.json()["ok"] and r.json()["agent"]["status"] == "available"
        assert truth(sim)["agents"][agent_id]["status"] != "paused"  # the dialer may ring her
        page = bob.get(f"/agents/{agent_id}/").text
        assert "Set agent state: paused: Coaching" in page
        assert "Refused (409)" in page and "Done (200)" in page


def test_roles_and_my_floor_are_enforced(served):
    sim, server = served
    agents = sim.agents()
    agent = agents[3]
    other_team = next(a for a in agents if a["team"] != agent["team"])
    with (
        closing(server.signed_in_client("sue")) as sue,
        closing(server.signed_in_client("mia")) as mia,
        closing(server.signed_in_client("wally")) as wally,
    ):
        signing_out = post(sue, f"/agents/{agent['agentId']}/state/", status="offline")
        assert signing_out.status_code == 403 and "for Managers" in signing_out.json()["message"]
        refused = wally.post(
            f"/agents/{agent['agentId']}/state/",
            data={"status": "paused"},
            headers={"X-CSRFToken": wally.cookies["csrftoken"]},
        )
        assert refused.status_code == 403
        no_csrf = httpx.post(
            f"{server.url}/agents/{agent['agentId']}/state/",
            data={"status": "paused"},
            cookies={"sessionid": mia.cookies["sessionid"]},
        )
        assert no_csrf.status_code == 403
        # sue runs one team ("my floor"): the other team's agents are not hers to act on
        sue.post(
            "/accounts/preferences/teams/",
            data={"teams": agent["team"], "csrfmiddlewaretoken": sue.cookies["csrftoken"]},
        )
        r = post(sue, f"/agents/{other_team['agentId']}/state/", status="paused")
        assert r.status_code == 403 and "own teams only" in r.json()["message"]
        held = truth(sim)["agents"][other_team["agentId"]]  # never asked of the service
        assert (held["pending_status"], held["changed_by"]) == (None, None)
        call_id, _ = live_call(sim, server, agents.index(other_team))
        r = post(sue, f"/calls/{call_id}/monitor/", mode="listen", monitor_dial="+447700900222")
        assert r.status_code == 403 and sessions_on(sim, call_id) == []
        sim.control("end-call", call_id=call_id)
        # a Manager signs an agent out (paused first: the dialer rings no paused agent)
        sim.control("agent-status", agent_id=other_team["agentId"], status="paused")
        r = post(mia, f"/agents/{other_team['agentId']}/state/", status="offline")
        assert r.json()["ok"], r.text
        assert truth(sim)["agents"][other_team["agentId"]]["status"] == "offline"
        assert truth(sim)["agents"][other_team["agentId"]]["changed_by"] == "mia"


def test_each_refusal_is_said_and_recorded_and_a_missing_group_hides_the_controls(served):
    sim, server = served
    call_id, agent = live_call(sim, server, 4)
    with closing(server.signed_in_client("mia")) as mia:
        dial = {"monitor_dial": "+447700900333"}
        sim.control("intervention-fault", status=503, group="monitor", seconds=30)
        r = post(mia, f"/calls/{call_id}/monitor/", mode="listen", **dial)
        assert r.status_code == 502 and "HTTP 503" in r.json()["message"]
        fragment = mia.post(  # htmx and forms: the page's fragment
            f"/calls/{call_id}/monitor/",
            data={"mode": "listen", **dial},
            headers={"X-CSRFToken": mia.cookies["csrftoken"]},
        )
        assert fragment.headers["content-type"].startswith("text/html")
        assert 'role="alert"' in fragment.text and "HTTP 503" in fragment.text
        sim.control("intervention-fault", status=0, delay_s=6, group="monitor", seconds=30)
        r = post(mia, f"/calls/{call_id}/monitor/", mode="listen", **dial)
        assert r.status_code == 504 and "within 5 seconds" in r.json()["message"]
        sim.control("intervention-fault", status=0, seconds=0)
        wait_until(lambda: len(sessions_on(sim, call_id)) <= 1, 5, "the slow request's session")
        sim.control("intervention-fault", status=403, group="monitor", seconds=30)
        r = post(mia, f"/calls/{call_id}/monitor/", mode="listen", **dial)
        assert r.status_code == 403 and "service user may not" in r.json()["message"]
        sim.control("intervention-fault", status=0, seconds=0)
        r = post(mia, f"/calls/{call_id}/monitor/", mode="listen", monitor_dial="sip:bad")
        assert r.status_code == 400  # refused by the dashboard: never sent
        page = mia.get(f"/calls/{call_id}/").text
        assert page.count("Not confirmed (503)") == 2
        for said in ("Not confirmed (503)", "Not confirmed:", "Refused (403)"):
            assert said in page, said
        sim.control("intervention-fault", status=404, group="agent-status", seconds=60)
        r = post(mia, f"/agents/{agent['agentId']}/state/", status="paused")
        assert r.status_code == 404 and r.json()["hidden"] == "agent-status"
        assert "does not offer setting agents' states" in r.json()["message"]
        assert '"state": false' in mia.get("/").text  # the page's script hides the control
        sim.control("intervention-fault", status=0, seconds=0)
    sim.control("end-call", call_id=call_id)

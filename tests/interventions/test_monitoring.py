"""Monitoring a live call through the dashboard's endpoints, against the simulated tenant:
each mode, switching, hanging up, the call ending under a session, two supervisors on one
call, the same supervisor refused, and what every page shows, asserted against the
simulator's own sessions and the audit."""

import re
from contextlib import closing

from dashboard.testing.interventions import (
    behind_the_back,
    live_call,
    post,
    sessions_on,
    truth,
    user_id,
)
from dashboard.testing.processes import wait_until


def live_page(http) -> str:
    return re.sub(r"\s+", " ", http.get("/").text)


def test_listen_switch_and_hang_up_with_every_screen_showing_it(served):
    sim, server = served
    call_id, agent = live_call(sim, server, 0)
    with (
        closing(server.signed_in_client("bob")) as bob,
        closing(server.signed_in_client("sue")) as sue,
    ):
        first = post(bob, f"/calls/{call_id}/monitor/", mode="listen")
        assert first.status_code == 400 and first.json()["need_dial"] is True
        assert sessions_on(sim, call_id) == []
        bad = post(bob, f"/calls/{call_id}/monitor/", mode="listen", monitor_dial="07700")
        assert bad.status_code == 400 and "international form" in bad.json()["message"]
        r = post(bob, f"/calls/{call_id}/monitor/", mode="listen", monitor_dial="+447700900123")
        assert r.status_code == 200 and r.json()["ok"] is True, r.text
        session = r.json()["session"]
        assert session["mode"] == "listen" and session["state"] == "dialing"
        [held] = sessions_on(sim, call_id)
        assert (held["session_id"], held["dial"]) == (session["session_id"], "+447700900123")
        wait_until(lambda: sessions_on(sim, call_id)[0]["state"] == "connected", 10, "answered")
        # Every supervisor's screen: the call's row and the agent's tile
        wait_until(
            lambda: live_page(sue).count("Listened by <bdi>bob</bdi> (listen)") >= 2,
            10,
            "bob listening on sue's floor, in the row and the tile",
        )
        r = post(bob, f"/calls/{call_id}/monitor/", mode="whisper")
        assert r.json()["ok"] and r.json()["session"]["mode"] == "whisper", r.text
        assert sessions_on(sim, call_id)[0]["mode"] == "whisper"
        assert len(sessions_on(sim, call_id)) == 1  # switched, not dialled again
        wait_until(lambda: "(whisper)" in live_page(sue), 10, "the switch on sue's floor")
        r = post(bob, f"/calls/{call_id}/monitor/", mode="barge")
        assert sessions_on(sim, call_id)[0]["mode"] == "barge"
        r = post(bob, f"/calls/{call_id}/monitor/end/")
        assert r.json() == {"ok": True, "message": "Hung up: your monitoring session has ended."}
        assert sessions_on(sim, call_id)[0]["state"] == "ended"
        wait_until(lambda: "Listened by" not in live_page(sue), 10, "the session gone from screens")
        call_page = bob.get(f"/calls/{call_id}/").text
        for asked in ("Start monitoring: listen", "Switch mode: whisper", "Hang up: hang up"):
            assert asked in call_page
        assert "Start monitoring: listen" in bob.get(f"/agents/{agent['agentId']}/").text
    sim.control("end-call", call_id=call_id)


def test_two_supervisors_on_one_call_and_the_same_one_refused(served):
    sim, server = served
    call_id, _ = live_call(sim, server, 1)
    with (
        closing(server.signed_in_client("bob")) as bob,
        closing(server.signed_in_client("mia")) as mia,
    ):
        dial = {"monitor_dial": "sip:someone@pbx.local"}
        assert post(bob, f"/calls/{call_id}/monitor/", mode="listen", **dial).json()["ok"]
        assert post(mia, f"/calls/{call_id}/monitor/", mode="whisper", **dial).json()["ok"]
        assert len(sessions_on(sim, call_id)) == 2
        wait_until(
            lambda: (
                "Listened by <bdi>bob</bdi>" in live_page(mia)
                and "Listened by <bdi>mia</bdi>" in live_page(mia)
            ),
            10,
            "both sessions on the floor",
        )
        # A second session of the same supervisor, started behind the dashboard's back
        # (another tab, a script): the service refuses it and the page says so
        sue_id = user_id(server, "sue")
        behind_the_back(sim, call_id, sue_id)
        with closing(server.signed_in_client("sue")) as sue:
            r = post(sue, f"/calls/{call_id}/monitor/", mode="listen", **dial)
            assert r.status_code == 409, (sue_id, r.text, sessions_on(sim, call_id))
            assert "already have a monitoring session" in r.json()["message"]
            assert len([s for s in sessions_on(sim, call_id) if s["supervisor_id"] == sue_id]) == 1
        # The call ends under the sessions: the service ends them, every screen drops them
        sim.control("end-call", call_id=call_id)
        assert {s["state"] for s in sessions_on(sim, call_id)} == {"ended"}
        wait_until(lambda: "Listened by" not in live_page(mia), 10, "the sessions gone")
        late = post(bob, f"/calls/{call_id}/monitor/", mode="listen")
        assert late.status_code == 409 and "has ended" in late.json()["message"]
    assert all(s["state"] == "ended" for s in truth(sim)["sessions"] if s["call_id"] == call_id)

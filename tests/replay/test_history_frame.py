"""A moment of today before the dashboard followed the floor: the replay rebuilds it from
the service's history, every agent in the state the service says it held then, and says
that it is rebuilt rather than recorded."""

from datetime import UTC, datetime, timedelta
from html import unescape

from dashboard.testing.live_view import View, ViewParser
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.testing.zones import late_morning

REBUILT = "Rebuilt from the service's history"


def test_a_moment_before_the_recording_is_rebuilt_from_the_history(sim_factory, tmp_path):
    zone = late_morning()
    sim = sim_factory("--seed", "8", "--agents", "20", "--zone", zone, "--history-days", "35")
    server = start_dashboard(sim, tmp_path, {"TIME_ZONE": zone}, people={"bob": "supervisor"})
    try:
        client = server.signed_in_client("bob")
        wait_until(lambda: "Floor replay" in client.get(f"{server.url}/replay/").text, 30, "a page")
        moment = datetime.now(UTC) - timedelta(hours=2)  # about 09:00 there: a busy floor
        page = client.get(f"{server.url}/replay/", params={"at": moment.isoformat()}).text
        assert REBUILT in unescape(page)
        view = View()
        ViewParser(view).feed(page)
        token = sim.sign_in()["access_token"]
        after = (moment + timedelta(milliseconds=1)).isoformat()
        truth = {}
        body = sim.get("/agent-status/history", token, since=moment.isoformat(), until=after).json()
        for row in body["data"]:
            until = row["until"] and datetime.fromisoformat(row["until"])
            if datetime.fromisoformat(row["since"]) <= moment and (until is None or until > moment):
                truth[row["agentId"]] = row["status"]
        assert len(truth) == 20 and view.agents == truth
        assert sum(state in ("ringing", "on_call", "wrap_up") for state in truth.values()) > 0
        # The slider's frames (the page's script) say so too.
        frame = client.get(f"{server.url}/replay/moment/", params={"at": moment.isoformat()})
        assert REBUILT in frame.json()["note"] and 'class="agent' in frame.json()["html"]
    finally:
        server.stop()

"""A dashboard that first reads a queue after calls came: the service gives totals since a
time, so what came before that read is the day's "before" row, counted whole in the
queue's service level and in no 15-minute slot; what comes after goes to its slot."""

import html
import re
from datetime import datetime

from dashboard.testing.inbound import csv_rows, truth
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard

SL = "Service level % (within target ÷ answered + abandoned − short, open minutes)"
EARLY = [{"wait_s": w, "outcome": "answered"} for w in (4, 8, 30)] + [
    {"wait_s": 12, "outcome": "abandoned"}
]


def test_the_calls_before_the_first_read_are_the_days_before_row(sim_factory, tmp_path):
    sim = sim_factory("--faults", "--seed", "7")
    sim.control("inbound-reset")
    sim.control("inbound-calls", queue="Billing", calls=EARLY)  # before any dashboard
    billing = next(q for q in truth(sim)["queues"] if q["name"] == "Billing")
    server = start_dashboard(sim, tmp_path, {"INBOUND_POLL_S": "0.3"}, people={"bob": "supervisor"})
    try:
        client = server.signed_in_client("bob")

        def day():
            rows = csv_rows(client, f"/queues/{billing['id']}/")
            return rows if any(r["Offered"] != "0" for r in rows) else None

        rows = wait_until(day, 30, "Billing's day read")
        # Target 10 s: 2 of 3 answered within it, 1 abandoned after 12 s: 2 ÷ 4.
        assert [(r["Offered"], r["Answered"], r["Abandoned"]) for r in rows] == [("4", "3", "1")]
        assert rows[0]["Slot start"].startswith("before ")
        assert rows[0]["Service level % (open minutes)"] == "50.0"
        first_read = datetime.fromisoformat(rows[0]["Slot start"].removeprefix("before "))
        page = html.unescape(re.sub(r"<[^>]+>", "", client.get(f"/queues/{billing['id']}/").text))
        assert f"The day per 15 minutes from {first_read:%H:%M}" in page
        assert re.search(rf"Before {first_read:%H:%M}\b", page)

        late = [{"wait_s": 2, "outcome": "answered"}] * 4
        sim.control("inbound-calls", queue="Billing", calls=late)

        def both():
            rows = csv_rows(client, f"/queues/{billing['id']}/")
            return rows if sum(int(r["Offered"]) for r in rows) == 8 else None

        rows = wait_until(both, 30, "the later calls counted")
        assert rows[0]["Offered"] == "4"  # the before row stays as it was read
        assert [r["Offered"] for r in rows[1:] if r["Offered"] != "0"] == ["4"]
        # The queue's service level is the day's, before row included: 6 of 8 in 10 s.
        queue = next(r for r in csv_rows(client, "/queues/") if r["Queue"] == "Billing")
        assert queue[SL] == "75.0"
    finally:
        server.stop()

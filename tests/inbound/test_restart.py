"""A queue's day across a restart of a real dashboard process: its 15-minute slots and their
open and closed parts come back from the database as they were, and what the service
counts after the restart is added once, not the day over again."""

from dashboard.testing.inbound import csv_rows, truth
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard

SL = "Service level % (within target ÷ answered + abandoned − short, open minutes)"
POLL = {"INBOUND_POLL_S": "0.3"}


def shown(server, name, **wanted) -> dict:
    """The queue's /queues/ CSV row once it shows what is wanted (a fresh sign-in each
    time: the dashboard may just have restarted)."""
    client = server.signed_in_client("bob")

    def check():
        row = next((r for r in csv_rows(client, "/queues/") if r["Queue"] == name), None)
        return row if row and all(row[k] == v for k, v in wanted.items()) else None

    return wait_until(check, 30, f"{name} showing {wanted}")


def day_of(server, queue_id) -> list[dict]:
    """The queue's day per 15 minutes, the slots with calls in them."""
    rows = csv_rows(server.signed_in_client("bob"), f"/queues/{queue_id}/")
    return [r for r in rows if r["Offered"] != "0"]


def counted(server, queue_id, offered: int, closed: int):
    """The day's slots hold the calls: the list counts the service's events at once, the
    slots (open or closed minutes) the board's next read of the service."""

    def check():
        rows = day_of(server, queue_id)
        return (
            sum(int(r["Offered"]) for r in rows),
            sum(int(r["Offered while closed"]) for r in rows),
        )

    wait_until(lambda: check() == (offered, closed), 30, f"{offered} offered, {closed} closed")


def test_a_restart_mid_day_keeps_the_queues_day_per_15_minutes(sim_factory, tmp_path):
    sim = sim_factory("--faults", "--seed", "7")
    sim.control("inbound-reset")
    server = start_dashboard(sim, tmp_path, POLL, people={"bob": "supervisor"})
    billing = next(q for q in truth(sim)["queues"] if q["name"] == "Billing")
    try:
        shown(server, "Billing", Offered="0", Open="yes")
        sim.control("inbound-calls", queue="Billing", calls=[{"wait_s": 4, "outcome": "answered"}])
        shown(server, "Billing", Offered="1")
        counted(server, billing["id"], 1, 0)
        sim.control("inbound-schedule", schedule="Main hours", open=False)
        shown(server, "Billing", Open="no")
        late = [{"wait_s": 50, "outcome": "answered"}] * 3
        sim.control("inbound-calls", queue="Billing", calls=late)
        counted(server, billing["id"], 4, 3)
        shown(server, "Billing", Offered="4", **{SL: "100.0"})
        sim.control("inbound-schedule", schedule="Main hours", open=True)
        shown(server, "Billing", Open="yes")
        before = day_of(server, billing["id"])
        assert sum(int(r["Offered while closed"]) for r in before) == 3, before

        server.stop()  # the day so far is the database's, not one slot of the new process
        server = start_dashboard(sim, tmp_path, POLL)
        # Reopened now: the closed minutes stay closed, the service level stays the open ones'.
        shown(server, "Billing", Offered="4", Open="yes", **{SL: "100.0"})
        assert day_of(server, billing["id"]) == before

        sim.control("inbound-calls", queue="Billing", calls=[{"wait_s": 2, "outcome": "answered"}])
        counted(server, billing["id"], 5, 3)  # nothing counted twice
        shown(server, "Billing", Offered="5", **{SL: "100.0"})
        assert sum(int(r["Offered"]) for r in day_of(server, billing["id"])) == 5
    finally:
        server.stop()

"""Between two reads of the service, the inbound side moves with the events: a queue's
queue.stats counts move its row on /queues/ and on the live view, a ring group's agent's
changes its page (open or loaded) and its count of agents available, and a voicemail.received
event brings the new message in at once. The dashboard here reads the service only every
ten minutes, so what moves can only have come from the events."""

import re

import pytest

from dashboard.testing.inbound import csv_rows, truth
from dashboard.testing.processes import wait_until
from dashboard.testing.raw_socket import RawSocket, Reading
from dashboard.testing.servers import start_dashboard

CALLS = [{"wait_s": w, "outcome": "answered"} for w in (5, 15)] + [
    {"wait_s": 30, "outcome": "abandoned"}
]


@pytest.fixture
def slow(sim_factory, tmp_path):
    sim = sim_factory("--faults", "--seed", "7")
    sim.control("inbound-reset")
    server = start_dashboard(sim, tmp_path, {"INBOUND_POLL_S": "600"}, people={"bob": "supervisor"})
    yield sim, server
    server.stop()


def test_queue_rows_move_with_the_events_between_reads(slow):
    sim, server = slow
    client = server.signed_in_client("bob")

    def billing():
        return next((r for r in csv_rows(client, "/queues/") if r["Queue"] == "Billing"), None)

    wait_until(lambda: (row := billing()) and row["Offered"] == "0", 30, "the first read")
    sim.control("inbound-calls", queue="Billing", calls=CALLS)
    row = wait_until(lambda: (r := billing()) and r["Offered"] == "3" and r, 30, "3 offered")
    assert (row["Answered"], row["Abandoned (5 s or more)"]) == ("2", "1")
    queue_id = next(q["id"] for q in truth(sim)["queues"] if q["name"] == "Billing")

    def live_row():
        page = client.get("/").text
        found = re.search(rf'<li id="queue-{re.escape(queue_id)}".*?</li>', page, re.S)
        return found and found.group(0)

    shown = wait_until(lambda: (r := live_row()) and 'data-count="offered">3<' in r and r, 30, "")
    assert 'data-count="answered">2<' in shown and 'data-count="abandoned">1<' in shown


def test_a_voicemail_event_brings_the_message_in_at_once(slow):
    sim, server = slow
    client = server.signed_in_client("bob")
    wait_until(lambda: csv_rows(client, "/voicemail/") == [], 30, "an empty backlog")
    left = sim.control("voicemail", queue="Billing", caller_name="Dana Example", duration_s=42)
    rows = wait_until(lambda: csv_rows(client, "/voicemail/"), 30, "the message listed")
    assert [(r["Message id"], r["Caller"]) for r in rows] == [(left["id"], "Dana Example")]


def test_a_ring_group_agents_status_moves_on_the_queues_page_between_reads(slow):
    sim, server = slow
    client = server.signed_in_client("bob")
    billing = next(q for q in truth(sim)["queues"] if q["name"] == "Billing")
    agent_id = billing["ring_group"]["agent_ids"][0]
    link = f'href="/agents/{agent_id}/"'

    def status_shown():
        page = client.get(f"/queues/{billing['id']}/").text
        found = re.search(rf'{re.escape(link)}.*?data-status="([a-z_]+)"', page, re.S)
        return found and found.group(1)

    wait_until(status_shown, 30, "the ring group listed")
    for status in ("paused", "offline"):
        sim.control("agent-status", agent_id=agent_id, status=status)
        wait_until(lambda s=status: status_shown() == s, 30, f"{agent_id} shown {status}")


def test_an_open_queue_page_is_pushed_its_ring_groups_changes(slow):
    sim, server = slow
    sim.control("pause")  # the floor moves only as this test moves it
    client = server.signed_in_client("bob")
    billing = next(q for q in truth(sim)["queues"] if q["name"] == "Billing")
    agent_id = billing["ring_group"]["agent_ids"][0]
    member = re.compile(
        rf'href="/agents/{re.escape(agent_id)}/"><bdi>([^<]*)</bdi></a> '
        r'<span class="status" data-status="([a-z_]+)"'
    )
    wait_until(lambda: csv_rows(client, "/queues/"), 30, "the queues read")

    def pushed():  # the member as the last body pushed to the page shows it
        bodies = [t for _, t in reading.frames if 'id="queue-body"' in t]
        found = bodies and member.search(bodies[-1])
        return found and found.groups()

    def available():  # the queues list's count, and the simulator's
        row = next(r for r in csv_rows(client, "/queues/") if r["Queue"] == "Billing")
        ids = set(billing["ring_group"]["agent_ids"])
        counted = sum(a["agentId"] in ids and a["status"] == "available" for a in sim.agents())
        return int(row["Ring group agents available"]), counted

    cookie = ["Cookie: " + server.session_cookie("bob")]
    reading = Reading(RawSocket(server.url, f"/ws/queues/{billing['id']}/", cookie))
    try:
        for name, status in [
            ("Ana Example", "available"),
            ("Ana Example", "paused"),
            ("Bo", "offline"),
        ]:
            sim.control("agent-status", agent_id=agent_id, status=status, name=name)
            wait_until(lambda s=(name, status): pushed() == s, 30, f"{name} {status} pushed")
            shown, counted = available()  # the board the push was rendered from
            assert shown == counted
            page = client.get(f"/queues/{billing['id']}/").text
            assert member.search(page).groups() == (name, status)
    finally:
        reading.ws.close()
        reading.stop()

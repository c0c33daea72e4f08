"""The queues list is pushed when what it shows changes, not on every read of the service:
its freshness is when it last changed, which the browser counts on from. A page no one has
open is not rendered at all."""

import re

from dashboard.testing.inbound import csv_rows
from dashboard.testing.metrics import TOKEN, scrape, value
from dashboard.testing.processes import wait_until
from dashboard.testing.raw_socket import RawSocket, Reading
from dashboard.testing.servers import start_dashboard

FRESHNESS = re.compile(r"(As of|Last change) <time[^>]*>[^<]*</time>")


def test_the_queues_list_is_pushed_only_when_it_changes(served):
    sim, server = served
    client = server.signed_in_client("bob")
    wait_until(lambda: csv_rows(client, "/queues/"), 30, "the queues read")
    reading = Reading(
        RawSocket(server.url, "/ws/queues/", ["Cookie: " + server.session_cookie("bob")])
    )
    try:
        sim.control("inbound-calls", queue="Billing", calls=[{"wait_s": 4, "outcome": "answered"}])
        sim.control("voicemail", queue="Billing")

        def age():  # the message's age, as each read of the service works it out
            rows = csv_rows(client, "/voicemail/")
            return int(rows[0]["Age (s)"]) if rows else None

        first = wait_until(age, 30, "the message listed")
        wait_until(lambda: age() >= first + 3, 30, "reads of the service going on")
    finally:
        reading.ws.close()
        frames = reading.stop()
    bodies = [FRESHNESS.sub("", t) for _, t in frames if 'id="queues-body"' in t]
    assert any('data-offered="1"' in b for b in bodies), bodies  # the calls were pushed
    assert "Last change <time" in next(t for _, t in frames if 'id="queues-body"' in t)
    # The first two pushes may repeat the body the socket was sent on connect: the board
    # learns that the page is open before its body is rendered and again once it joined
    # (watched.py), and pushes it each time, not knowing what a web worker rendered.
    pushes = bodies[2:]
    repeated = [b for b, after in zip(pushes, pushes[1:], strict=False) if b == after]
    assert not repeated, f"{len(repeated)} of {len(pushes)} pushes showed nothing new"


def test_a_page_that_joins_an_open_list_is_pushed_it_at_the_next_read(served):
    """A change pushed between the body a socket is sent and its join would be lost to that
    page: after each join the board pushes the page once more, even unchanged."""
    sim, server = served
    sim.control("pause")  # the agents too: the list shows how many are available
    client = server.signed_in_client("bob")
    wait_until(lambda: csv_rows(client, "/queues/"), 30, "the queues read")
    cookie = ["Cookie: " + server.session_cookie("bob")]
    first = Reading(RawSocket(server.url, "/ws/queues/", cookie))
    second = None
    try:
        wait_until(lambda: len(bodies(first)) >= 2, 30, "the open list pushed once joined")
        second = Reading(RawSocket(server.url, "/ws/queues/", cookie))
        got = wait_until(lambda: len(bodies(second)) >= 2 and bodies(second), 30, "a push")
    finally:
        for reading in (first, second):
            if reading:
                reading.ws.close()
                reading.stop()
    # Nothing changed on the still floor: the push was for the join.
    assert FRESHNESS.sub("", got[1]) == FRESHNESS.sub("", got[0])


def bodies(reading: Reading) -> list[str]:
    return [t for _, t in reading.frames if 'id="queues-body"' in t]


def test_pages_no_one_has_open_are_not_rendered_and_one_opened_later_is_pushed(
    sim_factory, tmp_path
):
    sim = sim_factory("--faults", "--seed", "7")
    sim.control("inbound-reset")
    server = start_dashboard(sim, tmp_path, {"INBOUND_POLL_S": "0.3", "METRICS_TOKEN": TOKEN})
    server.add_users({"bob": "supervisor"})
    try:
        client = server.signed_in_client("bob")
        sim.control("inbound-calls", queue="Billing", calls=[{"wait_s": 4, "outcome": "answered"}])
        wait_until(lambda: offered(client, "Billing") == 1, 30, "the call read")
        calls = rest_calls(server)
        wait_until(lambda: rest_calls(server) >= calls + 6, 30, "more reads of the service")
        assert rendered(server) == 0, "pages no one had open were rendered"

        reading = Reading(
            RawSocket(server.url, "/ws/queues/", ["Cookie: " + server.session_cookie("bob")])
        )
        try:
            sim.control(
                "inbound-calls", queue="Billing", calls=[{"wait_s": 2, "outcome": "answered"}]
            )
            wait_until(lambda: offered(client, "Billing") == 2, 30, "the second call read")
            wait_until(lambda: rendered(server, "queues") > 0, 30, "the open list rendered")
        finally:
            reading.ws.close()
            frames = reading.stop()
        assert any('data-offered="2"' in t for _, t in frames if 'id="queues-body"' in t)
        assert rendered(server, "queue") == 0 and rendered(server, "voicemail") == 0
    finally:
        server.stop()


def offered(client, queue: str) -> int | None:
    row = next((r for r in csv_rows(client, "/queues/") if r["Queue"] == queue), None)
    return int(row["Offered"]) if row else None


def rest_calls(server) -> float:
    return value(scrape(server.url), "dashboard_rest_calls_total")


def rendered(server, page: str = "") -> float:
    labels = {"page": page} if page else {}
    return value(scrape(server.url), "dashboard_page_bodies_rendered_total", **labels)

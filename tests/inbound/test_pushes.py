"""The queues list is pushed when what it shows changes, not on every read of the service:
its freshness is when it last changed, which the browser counts on from."""

import re

from dashboard.testing.inbound import csv_rows
from dashboard.testing.processes import wait_until
from dashboard.testing.raw_socket import RawSocket, Reading

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
    repeated = [b for b, after in zip(bodies, bodies[1:], strict=False) if b == after]
    assert not repeated, f"{len(repeated)} of {len(bodies)} pushes showed nothing new"

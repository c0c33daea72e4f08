"""The webhook receiver of a real dashboard process flooded with 1,000 signed deliveries in
10 s, a fifth of them repeats (the service's retries): every distinct delivery is stored
and processed exactly once, each repeat is answered "already received", nothing is lost,
and the process is still up."""

import asyncio
import json
import random
import re
import sqlite3
import time
from collections import Counter
from contextlib import suppress

import httpx
import pytest

from dashboard.testing.live_view import LiveSocket
from dashboard.testing.processes import let_pass_async, wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.upstream.webhooks import signature

SECRET = "e2e-webhook-secret"  # what start_dashboard configures
URL = "/webhooks/service/"
DISTINCT, REPEATS, SECONDS = 800, 200, 10.0


def data_for(event, i):
    return {
        "coaching_alert": {
            "alert_id": f"al-{i}",
            "agent_id": f"ag-{i % 40}",
            "kind": "long_hold",
            "severity": "critical",
            "message": f"Held {i} s",
        },
        "call_completed": {"call_id": f"k-{i}", "outcome": "sale", "duration_s": i},
        "qa_scored": {"scorecard_id": f"s-{i}", "score": i % 100, "max_score": 100, "passed": True},
        "compliance_checked": {"check_id": f"h-{i}", "rule": "dnc_check", "passed": i % 2 == 0},
    }[event]


def deliveries(organization: str, netloc: str):
    """The HTTP requests of DISTINCT deliveries, each built and signed once, then REPEATS of
    them byte for byte, shuffled so a repeat may arrive right after or long after its first
    copy."""
    events = ["coaching_alert", "call_completed", "qa_scored", "compliance_checked"]
    distinct = []
    for i in range(DISTINCT):
        event = events[i % len(events)]
        body = {
            "id": f"flood-{i}",
            "event": event,
            "organization_id": organization,
            "created_at": "2026-11-23T09:00:00Z",
            "data": data_for(event, i),
        }
        distinct.append(request(netloc, event, json.dumps(body).encode()))
    rng = random.Random(5)
    flood = distinct + rng.choices(distinct, k=REPEATS)
    rng.shuffle(flood)
    return flood


def request(netloc: str, event: str, body: bytes) -> bytes:
    head = [
        f"POST {URL} HTTP/1.1",
        f"Host: {netloc}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        f"X-Webhook-Event: {event}",
        f"X-Webhook-Signature: {signature(SECRET, body)}",
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def send_all(netloc, flood):
    """Each delivery at its slot of an even 10 s schedule, on 50 kept-alive connections: a
    delivery waits for a free one as long as it takes (a loaded machine's server answers
    the flood slowly); each answer, once sent for, within 60 s. The statuses, in order."""
    host, port = netloc.split(":")
    start, pending, answers = time.monotonic(), iter(enumerate(flood)), [0] * len(flood)

    async def connection():
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            for n, sent in pending:
                await let_pass_async(
                    start + n * SECONDS / len(flood) - time.monotonic(), "to its slot"
                )
                writer.write(sent)
                answers[n] = await asyncio.wait_for(status(reader), 60)
        finally:
            writer.close()

    await asyncio.gather(*(connection() for _ in range(50)))
    return answers


async def status(reader) -> int:
    """An answer's status; its body read past, so the connection can carry the next."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length: *(\d+)", head)
    await reader.readexactly(int(length[1]))
    return int(head.split(b" ", 2)[1])


NEW_ROW = re.compile(r'hx-swap-oob="afterbegin:#alerts-body"><tr id="alert-(\d+)"')


def new_alert_rows(socket, quiet=3.0):
    """Ids of the rows a manager's open coaching page was sent as new, until no new row has
    come for `quiet` seconds (the header's status still arrives every heartbeat)."""
    last_row = [time.monotonic()]

    def quiet_since_the_last_row():
        with suppress(TimeoutError):
            if NEW_ROW.search(socket.receive(timeout=quiet)):
                last_row.append(time.monotonic())
        return time.monotonic() - last_row[-1] >= quiet

    wait_until(quiet_since_the_last_row, 120, "the new rows to stop coming", interval=0)
    return NEW_ROW.findall("".join(socket.messages))


def counts(db):
    with sqlite3.connect(db) as conn:
        one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "deliveries": one("select count(*) from quality_delivery"),
            "processed": one("select count(*) from quality_delivery where status = 'processed'"),
            "alerts": one("select count(*) from quality_coachingalert"),
            "calls": one("select count(*) from quality_completedcall"),
            "scorecards": one("select count(*) from quality_scorecard"),
            "checks": one("select count(*) from quality_complianceresult"),
        }


@pytest.mark.timeout(180)
def test_a_flood_with_repeats_is_stored_and_processed_once_each(simulator, tmp_path):
    simulator.control("pause")
    server = start_dashboard(simulator, tmp_path, people={"mia": "manager"})
    try:
        manager = server.signed_in_client("mia")
        coaching = LiveSocket(server, manager, path="/ws/coaching/")
        netloc = server.url.removeprefix("http://")
        answers = asyncio.run(send_all(netloc, deliveries(simulator.org_a, netloc)))
        said = Counter(answers)  # each status's count, shown if one differs
        assert said[202] == DISTINCT, said  # stored, once per delivery id
        assert said[200] == REPEATS, said  # "already received"
        db = tmp_path / "dashboard.sqlite3"
        expected = {
            "deliveries": DISTINCT,
            "processed": DISTINCT,
            "alerts": DISTINCT // 4,
            "calls": DISTINCT // 4,
            "scorecards": DISTINCT // 4,
            "checks": DISTINCT // 4,
        }

        def delivery_lines():
            lines = server.log().splitlines()
            return "\n".join(line for line in lines if "delivery" in line.lower())[-4000:]

        wait_until(lambda: counts(db) == expected, 60, delivery_lines, interval=0.5)
        pushed = new_alert_rows(coaching)
        coaching.close()
        assert len(pushed) == len(set(pushed)) == DISTINCT // 4  # each new alert shown once
        assert server.process.running
        assert httpx.get(f"{server.url}/healthz", timeout=10).status_code == 200
        assert "Traceback" not in server.log() and SECRET not in server.log()
    finally:
        server.stop()

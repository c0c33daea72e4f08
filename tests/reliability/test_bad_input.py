"""The bad-input corpus: signed webhook envelopes carrying nonsense, anything a browser may
send on any socket, and hostile query strings on every page. Never a 500, never a
traceback shown, never a crashed socket or processor, never a secret in a response or a
log line of the real server."""

import json
import uuid

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.test import override_settings
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from dashboard.quality import processing
from dashboard.quality.models import Delivery
from dashboard.shared.cache_keys import STATUS_KEY
from dashboard.shared.groups import ALERTS
from dashboard.testing.live_view import LiveSocket
from dashboard.testing.processes import wait_until
from dashboard.testing.routes import pages, sockets
from dashboard.testing.servers import USER_PASSWORD, start_dashboard
from dashboard.testing.simulator import start_simulator
from dashboard.testing.sockets import communicator, following, session_cookie_for
from dashboard.upstream.webhooks import signature

SECRET = "e2e-webhook-secret"
SECRET_KEY = "e2e-django-secret-key-never-shown-0123456789"
JWT_HEADER = "eyJhbGciOi"  # every token the simulator issues starts with it
EVENTS = ["call_completed", "appointment_booked", "qa_scored", "compliance_checked"]
EVENTS.append("coaching_alert")
FIELDS = [  # the names the events' data use, so nonsense lands in the fields that matter
    "call_id",
    "agent_id",
    "campaign_id",
    "outcome",
    "duration_s",
    "appointment_id",
    "starts_at",
    "scorecard_id",
    "template_id",
    "score",
    "max_score",
    "passed",
    "check_id",
    "rule",
    "details",
    "alert_id",
    "kind",
    "severity",
    "message",
]
QUERY_KEYS = [  # the filters pages read, Django admin's own, and the sign-in's next
    "team",
    "state",
    "q",
    "sort",
    "density",
    "severity",
    "status",
    "agent",
    "kind",
    "next",
    "o",
    "p",
    "e",
    "all",
    "_changelist_filters",
    "_to_field",
    "_popup",
]
NASTY = ["", "\x00", "x" * 5000, "☎️\u202e", "<script>alert(1)</script>", "' OR 1=1 --", "%", "-1"]
nonsense = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=5,
)
queries = st.lists(  # huge values too: x * 20000 in process (Daphne limits a real URL)
    st.tuples(
        st.sampled_from(QUERY_KEYS) | st.text(max_size=10),
        st.sampled_from([*NASTY, "x" * 20000]) | st.text(max_size=30),
    ),
    max_size=6,
)


# ---- Webhooks: signed envelopes with nonsense inside -------------------------------------
@pytest.mark.django_db
@override_settings(UPSTREAM_WEBHOOK_SECRETS=[SECRET])
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    event=st.sampled_from(EVENTS),
    data=st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), nonsense, max_size=8),
    created_at=st.sampled_from(["2026-11-23T09:00:00Z", "yesterday", "", None, 5]),
)
def test_signed_nonsense_is_answered_and_ends_processed_or_failed(
    client, organization, event, data, created_at
):
    body = json.dumps(
        {
            "id": str(uuid.uuid4()),
            "event": event,
            "organization_id": organization,
            "created_at": created_at,
            "data": data,
        }
    ).encode()
    r = client.post(
        "/webhooks/service/",
        data=body,
        content_type="application/json",
        HTTP_X_WEBHOOK_EVENT=event,
        HTTP_X_WEBHOOK_SIGNATURE=signature(SECRET, body),
    )
    assert r.status_code in (202, 400), r.content
    processing.process_pending()  # raises nothing, whatever the delivery says
    stuck = Delivery.objects.filter(status__in=[Delivery.RECEIVED, Delivery.PROCESSING])
    assert not stuck.exists()  # each ended processed, failed or kept as malformed


# ---- Query strings of every page ----------------------------------------------------------
# A crawl of the hundred pages is the cost: each example is a crawl whose pages take turns
# at eight queries of its own, so four crawls send every page four queries and the crawl
# as a whole over thirty different ones (one query for a whole crawl sent a dozen in all).
@pytest.mark.django_db
@settings(
    max_examples=4,
    deadline=None,
    # eight queries an example: their generation takes long on a busy machine
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(turns=st.lists(queries, min_size=8, max_size=8))
@example(turns=[[("_to_field", "")]])  # Django's admin answers it 500 (accounts/admin_site.py)
def test_no_query_string_breaks_a_page(client, alice, turns):
    cache.set(STATUS_KEY, {"state": "connected", "reason": "", "since": ""})  # a bridge's word
    client.force_login(alice)
    for n, page in enumerate(pages()):
        query = turns[n % len(turns)]
        r = client.get(page.path, query)  # a list of pairs: keys may repeat
        assert r.status_code < 500, (page.path, query)
        assert b"Traceback" not in r.content, (page.path, query)


# ---- Websocket messages from browsers -----------------------------------------------------
browser_says = st.lists(
    st.text(max_size=200).map(lambda t: {"text": t})
    | st.binary(max_size=200).map(lambda b: {"bytes": b})
    | st.sampled_from(
        [
            {"text": '{"HEADERS": {"HX-Trigger": "x"}, "type": "live.push"}'},
            {"text": '{"type": "server.restarting"}'},
            {"text": "x" * 100_000},
            {"bytes": b"\x00" * 10},
        ]
    ),
    min_size=1,
    max_size=4,
)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", [path for path, _ in sockets()])
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(messages=browser_says)
async def test_a_socket_answers_nothing_a_browser_says_and_keeps_working(path, alice, messages):
    ws = communicator(await sync_to_async(session_cookie_for)(alice), path=path)
    assert (await ws.connect())[0]
    await following(ALERTS)  # every socket joins it last, after what a page gets on connect
    while not await ws.receive_nothing(timeout=0.1):
        await ws.receive_from()  # what a page gets on connect
    for message in messages:
        await ws.send_input({"type": "websocket.receive", **message})
    assert await ws.receive_nothing(timeout=0.2)  # no reply, no close
    assert not ws.future.done()  # the consumer did not end (an exception would end it)
    await ws.disconnect()


# ---- The real server: responses and log lines hold no secret ------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    sim = start_simulator("--faults", "--seed", "5")
    dashboard = None
    try:
        dashboard = start_dashboard(
            sim,
            tmp_path_factory.mktemp("bad-input"),
            {"SECRET_KEY": SECRET_KEY},
            people={"mia": "manager", "wes": "wallboard"},
        )
        dashboard.sim = sim
        yield dashboard
    finally:
        if dashboard:
            dashboard.stop()
        sim.stop()


def secrets_of(server):
    return [server.sim.password, SECRET, SECRET_KEY, USER_PASSWORD, JWT_HEADER]


def hostile_queries() -> list[tuple[str, str]]:
    """(path, value): every NASTY value to each view, and at least one to every page. The
    admin's pages of one kind run one view (which reads the query) whatever the model: its
    first model is sent them all, each of the others one, in turn."""
    seen, sent = set(), []
    for n, page in enumerate(pages()):
        if page.code in seen:
            sent.append((page.path, NASTY[n % len(NASTY)]))
        else:
            seen.add(page.code)
            sent += [(page.path, value) for value in NASTY]
    return sent


def test_the_real_server_shows_and_logs_no_secret_whatever_it_is_sent(server):
    manager = server.signed_in_client("mia")
    bodies = []
    for path, value in hostile_queries():
        r = manager.get(path, params=[("q", value), ("next", value), ("q", "again")])
        assert r.status_code < 500 and "Traceback" not in r.text, path
        bodies.append(r.text)
    for body, sig in [
        (b"{", signature(SECRET, b"{")),
        (b'{"id": "x", "event": "qa_scored", "data": []}', "sha256=bad"),
        (b"\x00\xff" * 100, ""),
    ]:
        r = httpx.post(
            f"{server.url}/webhooks/service/",
            content=body,
            headers={"X-Webhook-Event": "qa_scored", "X-Webhook-Signature": sig},
        )
        assert r.status_code in (400, 401)
        bodies.append(r.text)
    for path, _ in sockets():
        socket = LiveSocket(server, manager, path=path)
        for junk in ("{", "x" * 70_000, '{"type": "websocket.disconnect"}', b"\x00\xff"):
            socket.ws.send(junk)
        assert socket.ws.ping().wait(10)  # still open and answering
        socket.close()
    bad_host = httpx.get(f"{server.url}/", headers={"Host": "evil.example"})
    assert bad_host.status_code == 400
    viewer = server.signed_in_client("wes")
    assert viewer.get("/wallboards/").status_code == 403  # a refusal: one line in the log
    assert server.process.running
    # the log is read as it comes: wait for the last line
    wait_until(lambda: server.process.said("Invalid HTTP_HOST header"), 10, server.log)
    log = server.log()
    # Refusals (403 pages, the foreign Host) are one WARNING line each, /readyz's 503 INFO.
    assert [line for line in log.splitlines() if " ERROR " in line] == []
    assert "Traceback" not in log
    assert " WARNING django.security.DisallowedHost: Invalid HTTP_HOST header" in log
    assert "Internal Server Error" not in log
    for secret in secrets_of(server):
        assert secret not in log
        assert not any(secret in body for body in bodies)


def test_a_socket_closed_by_the_server_says_why(server):
    """A signed-out browser's socket is closed with 4401 (htmx does not retry it)."""
    anonymous = httpx.Client()
    anonymous.cookies.set("sessionid", "forged")
    with pytest.raises(ConnectionClosed) as closed:
        LiveSocket(server, anonymous).receive(timeout=10)
    assert closed.value.rcvd.code == 4401

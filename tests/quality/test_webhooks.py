"""The webhook receiver: signature first, durable store, answer at once, process once."""

import asyncio
import json
import sqlite3

import pytest
from asgiref.sync import sync_to_async
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.quality import processing
from dashboard.quality.models import (
    Appointment,
    CoachingAlert,
    CompletedCall,
    ComplianceResult,
    Delivery,
    Scorecard,
)
from dashboard.testing.deliveries import ALERT, SECRETS, URL, delivery, post
from dashboard.testing.processes import await_until, free_port, let_pass_async, wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.upstream.webhooks import signature

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("webhook_secrets")]


def test_it_accepts_a_correctly_signed_delivery_and_processes_it_after(client):
    r = post(client, delivery())
    assert r.status_code == 202
    assert Delivery.objects.get().status == Delivery.RECEIVED
    assert processing.process_pending() == 1
    alert = CoachingAlert.objects.get()
    assert (alert.severity, alert.status, alert.kind) == ("critical", "open", "long_hold")


@pytest.mark.parametrize(
    "sig",
    [
        "",  # missing
        "sha256=" + "0" * 64,  # wrong
        signature(SECRETS[0], b"other body"),  # for another body
        signature(SECRETS[0], delivery(delivery_id="x"))[7:],  # right digest, no prefix
        "sha1=" + signature(SECRETS[0], delivery(delivery_id="x"))[7:],  # wrong prefix
    ],
)
def test_it_refuses_a_missing_or_wrong_signature_and_stores_nothing(client, sig):
    r = post(client, delivery(delivery_id="x"), sig=sig)
    assert r.status_code == 401
    assert not Delivery.objects.exists()


def test_it_refuses_a_re_serialised_body(client):
    body = delivery()
    sig = signature(SECRETS[0], body)
    reserialised = json.dumps(json.loads(body), indent=2).encode()
    assert post(client, reserialised, sig=sig).status_code == 401


def test_it_accepts_the_second_secret_during_a_rotation(client):
    assert post(client, delivery(), secret=SECRETS[1]).status_code == 202


@pytest.mark.parametrize("event", ["", "call_done", "qa_scored"])
def test_it_refuses_an_unknown_or_mismatched_event_header(client, event):
    r = post(client, delivery("coaching_alert"), event=event)
    assert r.status_code == 400
    assert not Delivery.objects.filter(status=Delivery.RECEIVED).exists()


def test_it_refuses_a_body_over_256_kib(client):
    body = delivery(data={**ALERT, "message": "x" * (256 * 1024)})
    assert post(client, body).status_code == 413
    assert not Delivery.objects.exists()


def test_it_keeps_signed_malformed_json_for_audit(client):
    body = b'{"id": "broken", "event": '
    r = post(client, body)
    assert r.status_code == 400
    kept = Delivery.objects.get()
    assert kept.status == Delivery.MALFORMED and bytes(kept.body) == body
    assert processing.process_pending() == 0


def test_it_processes_a_delivery_id_once(client):
    body = delivery(delivery_id="same-id")
    assert post(client, body).status_code == 202
    assert post(client, body).status_code == 200  # the service's retry
    processing.process_pending()
    assert post(client, body).status_code == 200  # a replay after processing
    processing.process_pending()
    assert Delivery.objects.count() == 1 and CoachingAlert.objects.count() == 1


def test_it_leaves_deliveries_queued_once_told_to_stop(client):
    """A bridge that lost its lease stops between deliveries; the next leader takes them."""
    post(client, delivery())
    post(client, delivery(data={**ALERT, "alert_id": "al-2"}))
    stop = asyncio.Event()
    stop.set()
    assert processing.process_pending(stop) == 0
    assert set(Delivery.objects.values_list("status", flat=True)) == {Delivery.RECEIVED}
    assert processing.process_pending() == 2


def test_one_bad_delivery_is_marked_failed_and_the_rest_go_on(client):
    post(
        client,
        delivery("qa_scored", {"scorecard_id": "s1", "score": "high", "max_score": 0}),
        event="qa_scored",
    )
    post(client, delivery())
    assert processing.process_pending() == 1
    failed = Delivery.objects.get(status=Delivery.FAILED)
    assert failed.event == "qa_scored" and failed.error
    assert CoachingAlert.objects.count() == 1


@pytest.mark.django_db(transaction=True)
async def test_nothing_is_lost_between_store_and_process(client):
    """A process that died after answering leaves rows received (never touched) or
    processing (claimed, not finished); a new processor finishes them all, once each."""
    for i in range(3):
        await sync_to_async(post)(
            client, delivery(delivery_id=f"d{i}", data={**ALERT, "alert_id": f"a{i}"})
        )
    await Delivery.objects.filter(delivery_id="d0").aupdate(status=Delivery.PROCESSING)
    figures = []
    stop = asyncio.Event()
    task = asyncio.create_task(processing.run_processor(stop, on_figures=figures.append))

    async def all_processed():
        return await Delivery.objects.filter(status=Delivery.PROCESSED).acount() == 3

    await await_until(all_processed, 5, "the three deliveries processed")
    stop.set()
    await asyncio.wait_for(task, 5)
    assert await CoachingAlert.objects.acount() == 3
    assert figures and figures[-1]["open_critical"] == 3


@pytest.mark.django_db(transaction=True)
def test_a_delivery_is_taken_after_the_processor_and_its_loop_have_gone(client):
    """A stopped processor (a bridge that lost its lease; here one whose loop then closed)
    must not turn the receiver's wake-up nudge into a failed delivery."""

    async def run_briefly():
        stop = asyncio.Event()
        task = asyncio.create_task(processing.run_processor(stop))
        await let_pass_async(0.2, "the processor runs a moment")
        stop.set()
        await asyncio.wait_for(task, 5)

    asyncio.run(run_briefly())
    assert post(client, delivery()).status_code == 202
    assert processing.process_pending() == 1


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.binary(max_size=300)
    | st.builds(
        lambda d: json.dumps(d).encode(), st.dictionaries(st.text(max_size=8), st.text(max_size=8))
    ),
    event=st.text(max_size=30),
    sig=st.text(max_size=80),
    signed=st.booleans(),
    length=st.sampled_from(["", "abc", "-1", "0", "999999999"]),
)
def test_random_bodies_and_headers_never_give_a_500(client, body, event, sig, signed, length):
    headers = {
        "HTTP_X_WEBHOOK_EVENT": event,
        "HTTP_X_WEBHOOK_SIGNATURE": signature(SECRETS[0], body) if signed else sig,
    }
    if length and not length.isdigit():  # the test client cannot send fewer bytes than it says
        headers["CONTENT_LENGTH"] = length
    r = client.generic("POST", URL, data=body, content_type="application/json", **headers)
    assert r.status_code in (200, 202, 400, 401, 413)
    assert b"Traceback" not in r.content


def test_each_of_the_five_events_arrives_from_the_simulated_tenant(sim_factory, tmp_path):
    port = free_port()
    secret = "e2e-webhook-secret"
    sim = sim_factory(
        "--faults", "--webhook-url", f"http://127.0.0.1:{port}{URL}", "--webhook-secret", secret
    )
    sim.control("pause")
    env = {"UPSTREAM_WEBHOOK_SECRETS": secret}
    server = start_dashboard(sim, tmp_path, env, port=port, people={"mia": "manager"})
    try:
        # Each event's own record, by its id: the tables also hold what the backfill read
        # of the calls the service completed before the dashboard started.
        wanted = {
            "call_completed": ("quality_completedcall", "call_id"),
            "appointment_booked": ("quality_appointment", "appointment_id"),
            "qa_scored": ("quality_scorecard", "scorecard_id"),
            "compliance_checked": ("quality_complianceresult", "check_id"),
            "coaching_alert": ("quality_coachingalert", "alert_id"),
        }
        made = {e: sim.control("webhook", event=e)["data"][key] for e, (_, key) in wanted.items()}
        db = tmp_path / "dashboard.sqlite3"

        def recorded():
            with sqlite3.connect(db) as conn:
                return [
                    conn.execute(
                        f"select count(*) from {table} where {key} = ?", [made[e]]
                    ).fetchone()[0]
                    for e, (table, key) in wanted.items()
                ]

        wait_until(lambda: all(recorded()), 15, "each event's record")
        assert recorded() == [1, 1, 1, 1, 1]
        manager = server.signed_in_client("mia")
        with sqlite3.connect(db) as conn:
            kind, score = conn.execute(
                "select a.kind, s.score from quality_coachingalert a, quality_scorecard s"
                " where a.alert_id = ? and s.scorecard_id = ?",
                [made["coaching_alert"], made["qa_scored"]],
            ).fetchone()
        assert kind.replace("_", " ").capitalize() in manager.get("/coaching/").text
        assert f"{score} / " in manager.get("/qa/").text
        sim.control("bad-signature-webhook")
        refused = "webhook refused: missing or wrong signature"
        wait_until(lambda: server.process.said(refused), 10, server.log)
        with sqlite3.connect(db) as conn:
            assert conn.execute("select count(*) from quality_delivery").fetchone()[0] == 5
    finally:
        server.stop()


def test_records_are_typed_from_each_event(client):
    samples = {
        "call_completed": {
            "call_id": "k1",
            "agent_id": "a1",
            "campaign_id": "c1",
            "outcome": "sale",
            "duration_s": 95,
            "transcript": "…",
        },
        "appointment_booked": {
            "appointment_id": "p1",
            "call_id": "k1",
            "campaign_id": "c1",
            "agent_id": None,
            "starts_at": "2026-11-25T10:00:00Z",
        },
        "qa_scored": {
            "scorecard_id": "s1",
            "call_id": "k1",
            "agent_id": "a1",
            "template_id": "t1",
            "score": 72,
            "max_score": 100,
            "passed": True,
        },
        "compliance_checked": {
            "check_id": "h1",
            "call_id": "k1",
            "agent_id": "a1",
            "rule": "dnc_check",
            "passed": False,
            "details": "no check",
        },
    }
    for event, data in samples.items():
        assert post(client, delivery(event, data), event=event).status_code == 202
    assert processing.process_pending() == 4
    assert CompletedCall.objects.get().duration_s == 95
    assert Appointment.objects.get().agent_id == ""  # booked by the AI
    assert Scorecard.objects.get().score == 72
    assert ComplianceResult.objects.get().passed is False

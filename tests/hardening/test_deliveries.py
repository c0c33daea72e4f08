"""Webhook deliveries that must never count: another organisation's, data no column can
hold, a date still to come, a score above its maximum; and what cannot be processed for
another reason is retried a few times, not for ever."""

import json

import pytest
from django.core.cache import cache
from django.db import connection

from dashboard.quality import processing
from dashboard.quality.metrics import today_figures
from dashboard.quality.models import CoachingAlert, CompletedCall, Delivery, Scorecard
from dashboard.testing.deliveries import ALERT, delivery, post
from dashboard.upstream.webhooks import ORGANIZATION_KEY

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("webhook_secrets")]


def envelope(organization_id="org", **fields):
    body = json.loads(delivery())
    body.update(fields)
    if organization_id is None:
        del body["organization_id"]
    else:
        body["organization_id"] = organization_id
    return json.dumps(body).encode()


def test_a_deeply_nested_signed_body_is_answered_400_and_kept(client):
    body = b'{"id": "deep", "data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    r = post(client, body)
    assert r.status_code == 400 and r.json()["message"] == "body is nested too deeply"
    assert Delivery.objects.get().status == Delivery.MALFORMED


@pytest.mark.parametrize("organization_id", ["org-b", "", None])
def test_another_organisations_delivery_is_refused_kept_and_never_counted(client, organization_id):
    before = today_figures()
    body = envelope(organization_id)
    r = post(client, body)
    assert r.status_code == 403
    kept = Delivery.objects.get()
    assert kept.status == Delivery.REFUSED and bytes(kept.body) == body
    assert post(client, body).status_code == 403  # the service's retry: still refused, kept once
    assert Delivery.objects.count() == 1
    assert processing.process_pending() == 0
    assert not CoachingAlert.objects.exists() and today_figures() == before


def test_a_foreign_delivery_taken_before_the_first_sign_in_is_refused_when_processed(client):
    cache.delete(ORGANIZATION_KEY)  # no bridge has signed in yet: the receiver cannot tell
    assert post(client, envelope("org-b")).status_code == 202
    assert post(client, delivery(data={**ALERT, "alert_id": "ours"})).status_code == 202
    assert processing.process_pending() == 0  # waits until the organisation is known
    assert set(Delivery.objects.values_list("status", flat=True)) == {Delivery.RECEIVED}
    cache.set(ORGANIZATION_KEY, "org")
    assert processing.process_pending() == 1
    refused = Delivery.objects.get(status=Delivery.REFUSED)
    assert "'org-b' is not this dashboard's" in refused.error
    assert list(CoachingAlert.objects.values_list("alert_id", flat=True)) == ["ours"]


@pytest.mark.parametrize(
    ("event", "data", "reason"),
    [
        ("call_completed", {"call_id": "k", "outcome": "x" * 61}, "outcome is longer than 60"),
        ("call_completed", {"call_id": "k", "duration_s": 2**31}, "duration_s must be between"),
        ("call_completed", {"call_id": "k", "duration_s": -5}, "duration_s must be between"),
        ("call_completed", {"call_id": "k" * 201}, "call_id is longer than 200"),
        ("qa_scored", {"scorecard_id": "s", "score": 1000, "max_score": 10}, "score must be"),
        ("qa_scored", {"scorecard_id": "s", "score": 5, "max_score": 2**40}, "max_score must"),
        ("compliance_checked", {"check_id": "h", "rule": "r" * 121}, "rule is longer than 120"),
        ("coaching_alert", {**ALERT, "kind": "k" * 81}, "kind is longer than 80"),
    ],
)
def test_data_no_column_can_hold_marks_the_delivery_failed_with_the_reason(
    client, event, data, reason
):
    assert post(client, delivery(event, data), event=event).status_code == 202
    assert processing.process_pending() == 0
    failed = Delivery.objects.get()
    assert failed.status == Delivery.FAILED and reason in failed.error, failed.error
    assert failed.attempts == 1


def test_a_delivery_dated_in_the_future_is_refused_and_counts_on_no_day(client):
    body = json.loads(delivery("call_completed", {"call_id": "k2099", "duration_s": 60}))
    body["created_at"] = "2099-01-01T09:00:00Z"
    post(client, json.dumps(body).encode(), event="call_completed")
    assert processing.process_pending() == 0
    assert "is after it was received" in Delivery.objects.get().error
    assert today_figures()["calls_completed_today"] == 0 and not CompletedCall.objects.exists()


def test_a_score_above_its_maximum_never_reaches_the_qa_average(client):
    now = json.loads(delivery())["created_at"]
    for sid, score, max_score in [("fair", 5, 10), ("liar", 1000, 10)]:
        body = json.loads(
            delivery(
                "qa_scored",
                {"scorecard_id": sid, "score": score, "max_score": max_score, "passed": True},
            )
        )
        body["created_at"] = now
        post(client, json.dumps(body).encode(), event="qa_scored")
    processing.process_pending()
    assert list(Scorecard.objects.values_list("scorecard_id", flat=True)) == ["fair"]


def test_upstream_text_is_capped_and_loses_direction_overrides(client):
    evil = "Ann\u202eeiL\u202c" + "x" * 5000
    post(client, delivery(data={**ALERT, "message": evil}))
    processing.process_pending()
    message = CoachingAlert.objects.get().message
    assert len(message) == 2000 and message.startswith("AnneiLxxx") and message.endswith("…")


def test_a_delivery_that_fails_for_another_reason_is_retried_then_given_up(client):
    """The table is away (as in a bad migration): not the delivery's fault, so it is tried
    again on the next passes, MAX_ATTEMPTS times in all, then failed with the reason."""
    post(client, delivery())
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE quality_coachingalert RENAME TO quality_away")
    try:
        for attempt in range(1, processing.MAX_ATTEMPTS):
            assert processing.process_pending() == 0
            waiting = Delivery.objects.get()
            assert (waiting.status, waiting.attempts) == (Delivery.RECEIVED, attempt)
            assert "quality_coachingalert" in waiting.error
        assert processing.process_pending() == 0
        failed = Delivery.objects.get()
        assert (failed.status, failed.attempts) == (Delivery.FAILED, processing.MAX_ATTEMPTS)
        assert "quality_coachingalert" in failed.error
        assert processing.process_pending() == 0  # never tried again
    finally:
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE quality_away RENAME TO quality_coachingalert")
    post(client, delivery(data={**ALERT, "alert_id": "after"}))
    assert processing.process_pending() == 1


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity"])
def test_json_numbers_that_are_no_numbers_fail_the_delivery(client, number):
    body = delivery("call_completed", {"call_id": "k", "duration_s": 0}).replace(
        b'"duration_s": 0', b'"duration_s": ' + number
    )
    assert post(client, body, event="call_completed").status_code == 202
    assert processing.process_pending() == 0
    failed = Delivery.objects.get()
    assert failed.status == Delivery.FAILED and "duration_s must be a finite number" in failed.error

"""Transcripts from `call_completed` are kept from now on, with every phone number in them
cut to its last four digits before they are stored."""

import json

import pytest

from dashboard.quality import processing
from dashboard.quality.models import CompletedCall, Delivery
from dashboard.shared.privacy import last_four, mask_phone_numbers
from dashboard.testing.deliveries import delivery, post
from dashboard.upstream.webhooks import TRANSCRIPT_LIMIT

CALL = {"call_id": "k1", "agent_id": "a1", "outcome": "sale", "duration_s": 95}


@pytest.mark.django_db
@pytest.mark.usefixtures("webhook_secrets")
def test_a_transcript_is_stored_with_its_phone_numbers_cut(client):
    said = "Customer: ring me on +44 7700 900123 or (020) 7946-0958.\nAgent: at 10:30, ref 4411?"
    body = delivery("call_completed", {**CALL, "transcript": said})
    assert post(client, body, event="call_completed").status_code == 202
    processing.process_pending()
    kept = CompletedCall.objects.get().transcript
    assert kept == "Customer: ring me on •••0123 or •••0958.\nAgent: at 10:30, ref 4411?"
    stored = json.loads(bytes(Delivery.objects.get().body))  # the delivery as kept, too
    assert stored["data"]["transcript"] == kept and stored["data"]["call_id"] == "k1"
    long = delivery("call_completed", {**CALL, "transcript": "x" * (TRANSCRIPT_LIMIT + 10)})
    assert post(client, long, event="call_completed").status_code == 202
    processing.process_pending()  # a replay or a correction: the newest transcript wins
    assert len(CompletedCall.objects.get().transcript) == TRANSCRIPT_LIMIT


def test_numbers_are_cut_and_nothing_else():
    assert last_four("+1 (415) 555-0137") == "•••0137" and last_four("123") == "123"
    assert mask_phone_numbers("0800 123 4567, 2026-11-23") == "•••4567, •••1123"  # dates too
    assert mask_phone_numbers("£1,200.50 at 9:45 for 12 weeks, ref 123456") == (
        "£1,200.50 at 9:45 for 12 weeks, ref 123456"
    )

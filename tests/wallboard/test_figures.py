"""The wallboard's QA and coaching figures, from signed webhook deliveries through the
processor that hands them to the live feed."""

import asyncio
import json
import uuid
from datetime import UTC, datetime

import pytest
from asgiref.sync import sync_to_async
from django.test import Client, override_settings

from dashboard.quality import processing
from dashboard.quality.metrics import today_figures
from dashboard.quality.models import CoachingAlert
from dashboard.testing.processes import await_until
from dashboard.upstream.webhooks import signature

SECRET = "wallboard-test-secret"


@pytest.fixture(autouse=True)
def secret_configured(organization):
    with override_settings(UPSTREAM_WEBHOOK_SECRETS=[SECRET]):
        yield


def deliver(event, **data):
    body = json.dumps(
        {
            "id": str(uuid.uuid4()),
            "event": event,
            "organization_id": "org",
            "created_at": datetime.now(UTC).isoformat(),
            "data": data,
        }
    ).encode()
    r = Client().post(
        "/webhooks/service/",
        data=body,
        content_type="application/json",
        HTTP_X_WEBHOOK_EVENT=event,
        HTTP_X_WEBHOOK_SIGNATURE=signature(SECRET, body),
    )
    assert r.status_code == 202


def scored(agent_id, score, max_score=100, passed=True):
    deliver(
        "qa_scored",
        scorecard_id=str(uuid.uuid4()),
        call_id="k",
        agent_id=agent_id,
        template_id="t",
        score=score,
        max_score=max_score,
        passed=passed,
    )


def alert(alert_id, severity):
    deliver(
        "coaching_alert",
        alert_id=alert_id,
        agent_id="ag-1",
        call_id="k",
        kind="long_hold",
        severity=severity,
        message="Held for 4 minutes",
    )


@pytest.mark.django_db
def test_it_ranks_agents_by_their_average_qa_score_today():
    scored("ag-1", 70, passed=False)
    scored("ag-1", 90)
    scored("ag-2", 95)
    scored("ag-3", 8, max_score=10)
    scored("ag-4", 5, max_score=0)  # a score out of nothing ranks nowhere
    processing.process_pending()
    board = today_figures()["qa_leaderboard"]
    assert board == [
        {"agent_id": "ag-2", "scored": 1, "avg_pct": 95.0, "pass_pct": 100},
        {"agent_id": "ag-1", "scored": 2, "avg_pct": 80.0, "pass_pct": 50},
        {"agent_id": "ag-3", "scored": 1, "avg_pct": 80.0, "pass_pct": 100},
    ]


@pytest.mark.django_db(transaction=True)
async def test_it_hands_open_alerts_to_the_feed_and_a_resolution_too(alice):
    await sync_to_async(alert)("al-1", "critical")
    await sync_to_async(alert)("al-2", "warning")
    await sync_to_async(alert)("al-3", "warning")
    figures = []
    stop = asyncio.Event()
    task = asyncio.create_task(processing.run_processor(stop, on_figures=figures.append))

    async def seen(expected):
        shown = lambda: figures and figures[-1]["open_alerts"] == expected  # noqa: E731
        return await await_until(shown, 15, f"the figures' open alerts {expected}")

    try:
        assert await seen({"critical": 1, "warning": 2})
        pk = (await CoachingAlert.objects.aget(alert_id="al-1")).pk
        client = Client()
        await sync_to_async(client.force_login)(alice)
        note = {"note": "Coached on holds"}
        r = await sync_to_async(client.post)(f"/coaching/{pk}/resolve/", note)
        assert r.status_code == 302
        # No delivery came in: the processor's next pass still hands the feed the new count.
        assert await seen({"warning": 2})
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)

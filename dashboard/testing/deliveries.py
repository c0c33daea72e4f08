"""Signed webhook deliveries posted to the receiver in the test's own process."""

import json
import uuid

from dashboard.upstream.webhooks import signature

URL = "/webhooks/service/"
SECRETS = ["first-secret", "second-secret"]
ALERT = {
    "alert_id": "al-1",
    "agent_id": "ag-1",
    "call_id": "k-1",
    "kind": "long_hold",
    "severity": "critical",
    "message": "Held for 4 minutes",
}


def delivery(event="coaching_alert", data=None, delivery_id=None) -> bytes:
    return json.dumps(
        {
            "id": delivery_id or str(uuid.uuid4()),
            "event": event,
            "organization_id": "org",
            "created_at": "2026-11-23T09:00:00Z",
            "data": data or ALERT,
        }
    ).encode()


def post(client, body, *, event="coaching_alert", sig=None, secret=SECRETS[0], **headers):
    """POST `body` as the service would, signed with `secret` (or with `sig` as given)."""
    if sig is None:
        sig = signature(secret, body)
    extra = {"HTTP_X_WEBHOOK_EVENT": event, **headers}
    if sig:
        extra["HTTP_X_WEBHOOK_SIGNATURE"] = sig
    return client.post(URL, data=body, content_type="application/json", **extra)

"""Alerting as the tests drive it: the rules page through HTTP as a Manager, and the chat
webhook's deliveries as a receiver sees them (signature checked as docs/alerts.md says)."""

import hashlib
import hmac
import json
import os
import re
from dataclasses import dataclass
from datetime import datetime

from .processes import wait_until

SECRET = "alert-webhook-secret"


def alert_env(receiver, secret=SECRET, min_interval_s=1) -> dict:
    """What a dashboard needs to post its alerts to `receiver` (at most one POST each
    `min_interval_s`: a test that is not about the pace need not wait 10 s for each), with
    a digest window of 0.5 s, not 2 s, unless the shell sets ALERT_WEBHOOK_DIGEST_S."""
    return {
        "ALERT_WEBHOOK_URL": receiver.url,
        "ALERT_WEBHOOK_SECRET": secret,
        "ALERT_WEBHOOK_MIN_INTERVAL_S": str(min_interval_s),
        "ALERT_WEBHOOK_DIGEST_S": os.environ.get("ALERT_WEBHOOK_DIGEST_S", "0.5"),
    }


def calm(sim):
    """Stop the simulated floor's own moves (the `pause` control) and free every busy agent,
    so only the test moves agents (by the `agent-status` control) and nothing else crosses a
    limit. The agents, as they are then."""
    sim.control("pause")
    for agent in sim.agents():
        if agent["status"] not in ("available", "offline"):
            sim.control("agent-status", agent_id=agent["agentId"], status="available")
    return sim.agents()


class Rules:
    """The Managers' rules page, used through HTTP as a person would: `Rules(server)` adds
    a Manager to a `start_dashboard` server; `Rules(client=...)` takes a signed-in one."""

    def __init__(self, server=None, username="alice", *, client=None):
        if client is None:
            server.add_user(username, "manager")
            client = server.signed_in_client(username)
        self.client = client

    def page(self) -> str:
        r = self.client.get("/alerts/rules/")
        r.raise_for_status()
        return r.text

    def ids(self) -> list[int]:
        return [int(x) for x in re.findall(r'<tr id="rule-(\d+)"', self.page())]

    def delete_all(self):
        """The default rules included: a test's floor watches only its own rules."""
        for rule_id in self.ids():
            self.post(f"/alerts/rules/{rule_id}/delete/", {})

    def add(
        self,
        name,
        metric,
        *,
        scope="all",
        scope_value="",
        warn="",
        alarm="",
        hold_s=1,
        clear_s=1,
        alarm_agents="",
        alarm_share_pct="",
    ):
        before = set(self.ids())
        r = self.post(
            "/alerts/rules/",
            {
                "name": name,
                "metric": metric,
                "scope": scope,
                "scope_value": scope_value,
                "warn": warn,
                "alarm": alarm,
                "hold_s": hold_s,
                "clear_s": clear_s,
                "alarm_agents": alarm_agents,
                "alarm_share_pct": alarm_share_pct,
                "enabled": "on",
            },
        )
        assert r.status_code == 302, r.text
        (added,) = set(self.ids()) - before
        return added

    def post(self, path, data):
        self.client.get("/alerts/rules/")  # the CSRF cookie
        data = {**data, "csrfmiddlewaretoken": self.client.cookies["csrftoken"]}
        return self.client.post(path, data=data)


@dataclass
class Posted:
    """One transition the chat webhook posted: a POST of its own, or one of a digest's."""

    received_at: float  # time.time()
    headers: dict
    body: bytes  # the whole POST's
    payload: dict  # this transition's
    post: int = 0  # which POST the receiver got it in (0 the first)

    def verifies(self, secret=SECRET) -> bool:
        """The receiving side's check (docs/alerts.md)."""
        expected = "sha256=" + hmac.new(secret.encode(), self.body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(self.headers.get("x-dashboard-signature", ""), expected)

    @property
    def fell_due(self) -> datetime:
        p = self.payload
        moment = {
            "raised": p["raised_at"],
            "escalated": p.get("escalated_at"),
            "cleared": p["cleared_at"],
        }
        return datetime.fromisoformat(moment[p["transition"]])

    @property
    def latency_s(self) -> float:
        """From the moment the transition fell due to the POST's arrival."""
        return self.received_at - self.fell_due.timestamp()


def posted(receiver, rule: str | None = None) -> list[Posted]:
    """Every transition posted, a digest's each on its own, in the order received."""
    out = []
    posts = zip(receiver.received_at, receiver.received, strict=False)
    for n, (at, (headers, body)) in enumerate(posts):
        whole = json.loads(body)
        for payload in whole["alerts"] if whole["transition"] == "digest" else [whole]:
            if rule is None or payload["rule"] == rule:
                out.append(Posted(at, headers, body, payload, n))
    return out


def first_posts(receiver, rule: str | None = None) -> list[Posted]:
    """`posted`, each transition once: a POST retried carries the same ones again."""
    seen, out = set(), []
    for p in posted(receiver, rule):
        key = (p.payload["id"], p.payload["transition"])
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def wait_for_post(receiver, rule, transition, timeout=30, subject=None, since=0.0) -> Posted:
    """The first POST of `transition` about `subject` received at `since` (epoch s) or later:
    an earlier test's alert about the same subject posted its own."""

    def found():
        for p in posted(receiver, rule):
            if (
                p.payload["transition"] == transition
                and subject in (None, p.payload["subject"])
                and p.received_at >= since
            ):
                return p
        return None

    return wait_until(found, timeout, f"the webhook's {transition} of rule {rule!r}")

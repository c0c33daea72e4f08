"""/metrics for Prometheus: refused without its bearer token, absent without METRICS_TOKEN,
and its counters move with what the dashboard does against the simulator: in one process
(`manage.py serve`), and summed over a bridge and two web workers in multiprocess mode."""

import json
import re
import uuid

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from dashboard.testing.metrics import TOKEN, scrape, value
from dashboard.testing.processes import ROOT, free_port, wait_until
from dashboard.testing.raw_socket import RawSocket
from dashboard.testing.servers import (
    WEBHOOK_SECRET,
    ready,
    session_cookie,
    start_dashboard,
    start_topology,
)
from dashboard.upstream.webhooks import signature


def live_socket(server) -> RawSocket:
    """A live-view socket of `sup`, whom the server was started with."""
    ws = RawSocket(server.url, "/ws/live/", ["Cookie: " + server.session_cookie("sup")])
    ws.text()
    return ws


def webhook(url: str, organization: str, secret: str) -> int:
    body = json.dumps(
        {
            "id": str(uuid.uuid4()),
            "event": "coaching_alert",
            "organization_id": organization,
            "created_at": "2026-11-23T09:00:00Z",
            "data": {"alert_id": "al-m", "agent_id": "ag-1", "kind": "long_hold"},
        }
    ).encode()
    headers = {"X-Webhook-Event": "coaching_alert", "X-Webhook-Signature": signature(secret, body)}
    headers["Content-Type"] = "application/json"
    return httpx.post(f"{url}/webhooks/service/", content=body, headers=headers).status_code


@pytest.mark.parametrize(
    ("token", "authorization", "status"),
    [
        ("", f"Bearer {TOKEN}", 404),  # unset: no metrics at all
        (TOKEN, "", 401),
        (TOKEN, "Bearer wrong", 401),
        (TOKEN, TOKEN, 401),  # the token without its scheme
        (TOKEN, f"Bearer {TOKEN}", 200),
    ],
)
def test_metrics_need_the_bearer_token_and_are_absent_without_one(
    client, settings, token, authorization, status
):
    settings.METRICS_TOKEN = token
    headers = {"Authorization": authorization} if authorization else {}
    r = client.get("/metrics", headers=headers)
    assert r.status_code == status
    if status == 200:
        names = [f.name for f in text_string_to_metric_families(r.content.decode())]
        ours = [n for n in names if not n.startswith(("python_", "process_"))]
        assert ours and all(n.startswith("dashboard_") for n in ours)
    else:
        assert TOKEN not in r.content.decode()


def test_the_counters_move_with_the_feed_the_sockets_and_the_webhooks(simulator, tmp_path):
    server = start_dashboard(
        simulator, tmp_path, {"METRICS_TOKEN": TOKEN}, people={"sup": "supervisor"}
    )
    try:
        ws = live_socket(server)
        before = scrape(server.url)
        assert value(before, "dashboard_upstream_state", state="connected") == 1
        assert value(before, "dashboard_upstream_connects_total") >= 1
        assert value(before, "dashboard_sockets_open", kind="live") == 1
        assert value(before, "dashboard_rest_calls_total", endpoint="GET /agent-status") >= 1
        assert value(before, "dashboard_rest_call_seconds_count", endpoint="GET /agent-status") >= 1

        simulator.control("pause")  # only the changes forced here from now on
        agent = sorted(a["agentId"] for a in simulator.agents())[0]
        applied = value(before, "dashboard_events_applied_total", kind="agent.status")
        simulator.control("agent-status", agent_id=agent, status="offline")
        assert webhook(server.url, simulator.org_a, WEBHOOK_SECRET) == 202
        assert webhook(server.url, simulator.org_a, "not-the-secret") == 401

        def moved():
            now = scrape(server.url)
            changed = value(now, "dashboard_events_applied_total", kind="agent.status") > applied
            evaluated = value(now, "dashboard_alert_evaluations_total") > value(
                before, "dashboard_alert_evaluations_total"
            )
            return now if changed and evaluated else None

        after = wait_until(moved, 15, "the forced change and an alert pass counted")
        received = value(after, "dashboard_events_received_total", kind="agent.status")
        assert received >= value(after, "dashboard_events_applied_total", kind="agent.status")
        assert value(after, "dashboard_bridge_lag_seconds_count") > value(
            before, "dashboard_bridge_lag_seconds_count"
        )
        pushes = value(after, "dashboard_pushes_total", type="live.push")
        assert pushes > value(before, "dashboard_pushes_total", type="live.push")
        assert value(after, "dashboard_push_latency_seconds_count") >= 1
        assert value(after, "dashboard_webhook_deliveries_total", result="accepted") == 1
        assert value(after, "dashboard_webhook_deliveries_total", result="bad_signature") == 1
        ws.close()
        wait_until(
            lambda: value(scrape(server.url), "dashboard_sockets_open", kind="live") == 0,
            10,
            "the closed socket no longer counted",
        )
    finally:
        server.stop()


def test_a_scrape_of_any_worker_sums_every_process(simulator, redis_url, postgres_url, tmp_path):
    ports = [free_port(), free_port()]
    directory = tmp_path / "prometheus"
    directory.mkdir()
    processes = start_topology(
        simulator,
        redis_url,
        postgres_url,
        ports,
        bridges=1,
        METRICS_TOKEN=TOKEN,
        PROMETHEUS_MULTIPROC_DIR=directory,
    )
    workers = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        wait_until(lambda: all(ready(url) for url in workers), 30, "both workers ready")
        cookie = "Cookie: " + session_cookie(workers[0], "bob")
        sockets = [RawSocket(url, "/ws/live/", [cookie]) for url in workers]
        for ws in sockets:
            ws.text()
        for url in workers:  # either worker: both sockets, and the bridge's events
            samples = scrape(url)
            assert value(samples, "dashboard_sockets_open", kind="live") == 2
            assert value(samples, "dashboard_upstream_state", state="connected") == 1
            assert value(samples, "dashboard_rest_calls_total", endpoint="GET /agent-status") >= 1
        processes["web-2"].stop()  # its live values leave the sum with it
        wait_until(
            lambda: value(scrape(workers[0]), "dashboard_sockets_open", kind="live") == 1,
            10,
            "the stopped worker's socket no longer counted",
        )
    finally:
        for process in processes.values():
            process.stop()


def test_the_grafana_dashboard_reads_only_metrics_that_exist():
    from prometheus_client.metrics import MetricWrapperBase

    from dashboard.shared import metrics

    suffixes = {"counter": ["_total"], "gauge": [""], "histogram": ["_bucket", "_count", "_sum"]}
    exported = {
        m._name + suffix
        for m in vars(metrics).values()
        if isinstance(m, MetricWrapperBase)
        for suffix in suffixes[m._type]
    }
    board = json.loads((ROOT / "docs/grafana/dashboard.json").read_text())
    exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
    used = {name for e in exprs for name in re.findall(r"\bdashboard_\w+", e)}
    assert used and used <= exported, used - exported
    assert {m.removesuffix("_bucket") for m in used if m.endswith("_bucket")} == {
        "dashboard_bridge_lag_seconds",
        "dashboard_push_latency_seconds",
        "dashboard_rest_call_seconds",
    }

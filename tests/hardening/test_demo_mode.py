"""`make run`'s demo: the simulated tenant started by `manage.py serve` gets the webhook
secret through its environment, not its command line (which `ps` shows to every user),
and every configured webhook secret is accepted, not only the first."""

import json
import os
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path

import httpx

from dashboard.testing.processes import Process, free_port, wait_until
from dashboard.testing.servers import MANAGE, migrated_sqlite, ready
from dashboard.upstream.webhooks import signature

SECRETS = ["first-demo-secret", "second-demo-secret"]


def command_lines() -> list[str]:
    lines = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            lines.append(cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue  # gone meanwhile
    return lines


def test_the_demo_keeps_its_webhook_secrets_off_command_lines_and_accepts_each(tmp_path):
    port, sim_port = free_port(), free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("UPSTREAM_")},
        "DATABASE_URL": migrated_sqlite(tmp_path / "demo.sqlite3"),
        "SIMULATOR_PORT": str(sim_port),
        "UPSTREAM_WEBHOOK_SECRETS": ",".join(SECRETS),
        "REDIS_URL": "",
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    serve = Process([*MANAGE, "serve", "--port", port], env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: ready(url), 40, serve.log)
        simulators = [c for c in command_lines() if f"simulate --port {sim_port}" in c]
        assert simulators, "the demo's simulator is not running"
        assert not any(s in line for line in command_lines() for s in SECRETS)
        organization = re.search(r"organisation A: (\S+)", serve.log()).group(1)
        for secret in SECRETS:
            body = json.dumps(
                {
                    "id": str(uuid.uuid4()),
                    "event": "coaching_alert",
                    "organization_id": organization,
                    "created_at": datetime.now(UTC).isoformat(),
                    "data": {"alert_id": str(uuid.uuid4()), "severity": "info"},
                }
            ).encode()
            r = httpx.post(
                f"{url}/webhooks/service/",
                content=body,
                headers={
                    "X-Webhook-Event": "coaching_alert",
                    "X-Webhook-Signature": signature(secret, body),
                },
            )
            assert r.status_code == 202, (secret, r.text)
    finally:
        serve.stop()

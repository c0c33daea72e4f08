"""On PostgreSQL, two processors at once handle each stored delivery exactly once.

Only the leading bridge runs the processor, but a hand-over can leave the old one's last
pass running beside the new one's: the claim (a conditional update) must hold there.
"""

import os
import subprocess
import sys

import psycopg

from dashboard.testing.processes import ROOT

DELIVERIES = 600

STORE = f"""
import json
from dashboard.quality.models import Delivery
Delivery.objects.bulk_create(
    Delivery(
        delivery_id=f"d-{{n}}",
        event="coaching_alert",
        body=json.dumps({{
            "id": f"d-{{n}}",
            "event": "coaching_alert",
            "organization_id": "org",
            "created_at": "2026-11-23T09:00:00Z",
            "data": {{"alert_id": f"al-{{n}}", "agent_id": "ag-1", "kind": "long_hold",
                      "severity": "warning", "message": "Held for 4 minutes"}},
        }}).encode(),
    )
    for n in range({DELIVERIES})
)
"""
PROCESS = "from dashboard.quality.processing import process_pending; print(process_pending())"


def test_it_processes_each_delivery_once_with_two_processors_at_once(postgres_url):
    env = {**os.environ, "DATABASE_URL": postgres_url, "REDIS_URL": ""}
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([*manage, "shell", "-c", STORE], cwd=ROOT, env=env, check=True)
    processors = [
        subprocess.Popen(
            [*manage, "shell", "-c", PROCESS],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    counts = []
    for p in processors:
        out, err = p.communicate(timeout=100)
        assert p.returncode == 0, err
        counts.append(int(out.strip().splitlines()[-1]))
    assert sum(counts) == DELIVERIES, counts
    with psycopg.connect(postgres_url) as conn:
        statuses = conn.execute("SELECT status, count(*) FROM quality_delivery GROUP BY 1")
        assert dict(statuses.fetchall()) == {"processed": DELIVERIES}
        alerts = conn.execute(
            "SELECT count(DISTINCT alert_id), count(*) FROM quality_coachingalert"
        )
        assert alerts.fetchone() == (DELIVERIES, DELIVERIES)
    print(f"\nprocessed by each processor: {counts}")

"""On PostgreSQL, two processors at once handle each stored delivery exactly once.

Only the leading bridge runs the processor, but a hand-over can leave the old one's last
pass running beside the new one's: the claim (a conditional update) must hold there.
"""

import json

import psycopg

from dashboard.testing.processes import MANAGE, Process, command_env, last_line, run_manage
from dashboard.testing.servers import manage

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
PROCESS = (
    "from dashboard.upstream.webhooks import remember_organization; remember_organization('org')\n"
    "from dashboard.quality.processing import process_pending; print(process_pending())"
)


def test_it_processes_each_delivery_once_with_two_processors_at_once(postgres_url):
    env = command_env(DATABASE_URL=postgres_url, REDIS_URL="")
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "shell", "-c", STORE)
    processors = [Process([*MANAGE, "shell", "-c", PROCESS], env=env) for _ in range(2)]
    counts = []
    for p in processors:
        assert p.wait(100) == 0, p.log()[-3000:]
        counts.append(int([line for line in p.lines if line.strip().isdigit()][-1]))
    assert sum(counts) == DELIVERIES, counts
    with psycopg.connect(postgres_url) as conn:
        statuses = conn.execute("SELECT status, count(*) FROM quality_delivery GROUP BY 1")
        assert dict(statuses.fetchall()) == {"processed": DELIVERIES}
        alerts = conn.execute(
            "SELECT count(DISTINCT alert_id), count(*) FROM quality_coachingalert"
        )
        assert alerts.fetchone() == (DELIVERIES, DELIVERIES)
    print(f"\nprocessed by each processor: {counts}")


BAD_DATA = """
import json
from dashboard.quality.models import Delivery
from dashboard.quality.processing import MAX_ATTEMPTS, process_pending
from dashboard.upstream.webhooks import remember_organization
from django.db import connection

remember_organization("org")
def store(n, event, data, org="org"):
    body = {"id": f"d-{n}", "event": event, "organization_id": org,
            "created_at": "2026-11-23T09:00:00Z", "data": data}
    Delivery.objects.create(delivery_id=f"d-{n}", event=event, body=json.dumps(body).encode())
store(1, "call_completed", {"call_id": "k1", "outcome": "x" * 61, "duration_s": 5})
store(2, "call_completed", {"call_id": "k2", "outcome": "sale", "duration_s": 2**31})
store(3, "call_completed", {"call_id": "k3", "outcome": "sale", "duration_s": 60})
store(4, "call_completed", {"call_id": "k4", "outcome": "sale", "duration_s": 60}, org="org-b")
with connection.cursor() as c:
    c.execute("ALTER TABLE quality_appointment RENAME TO quality_away")
store(5, "appointment_booked", {"appointment_id": "p5"})
for _ in range(MAX_ATTEMPTS + 2):
    process_pending()
with connection.cursor() as c:
    c.execute("ALTER TABLE quality_away RENAME TO quality_appointment")
print(json.dumps({d.delivery_id: [d.status, d.attempts, d.error] for d in Delivery.objects.all()}))
"""


def test_bad_data_fails_once_and_other_errors_stop_after_the_cap(postgres_url):
    """PostgreSQL refuses a 61-character outcome and a duration of 2^31 (SQLite stores
    them); neither goes back in the queue every 5 s for ever."""
    env = command_env(DATABASE_URL=postgres_url, REDIS_URL="")
    manage(env, "migrate", "--noinput", "-v0")
    seen = json.loads(last_line(run_manage(env, "shell", "-c", BAD_DATA, timeout=100)))
    assert seen["d-1"][:2] == ["failed", 1] and "outcome is longer than 60" in seen["d-1"][2]
    assert seen["d-2"][:2] == ["failed", 1] and "duration_s must be between" in seen["d-2"][2]
    assert seen["d-3"] == ["processed", 1, ""]
    assert seen["d-4"][:2] == ["refused", 1] and "'org-b'" in seen["d-4"][2]
    assert seen["d-5"][:2] == ["failed", 5] and "quality_appointment" in seen["d-5"][2]
    with psycopg.connect(postgres_url) as conn:
        calls = conn.execute("SELECT call_id FROM quality_completedcall").fetchall()
        assert calls == [("k3",)]

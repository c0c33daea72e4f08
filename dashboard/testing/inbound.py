"""The inbound side in tests: a dashboard reading it, the simulator's truth and a page's CSV
rows."""

import csv
import io

import httpx

from .servers import start_dashboard


def inbound_dashboard(sim, path):
    """A dashboard reading `sim` every 0.3 s, whose inbound day starts empty and holds still
    (the model's own callers and messages stop)."""
    sim.control("inbound-reset")
    return start_dashboard(
        sim, path, {"INBOUND_POLL_S": "0.3"}, people={"bob": "supervisor", "alice": "manager"}
    )


def truth(sim) -> dict:
    """Organisation A's inbound truth: each queue's plan, state and day, and the messages."""
    return httpx.get(f"{sim.control_url}/inbound", timeout=10).json()


def csv_rows(client, path) -> list[dict]:
    r = client.get(path, params={"format": "csv"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(r.text)))

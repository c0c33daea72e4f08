"""The inbound side in tests: the simulator's truth and a page's CSV rows."""

import csv
import io

import httpx


def truth(sim) -> dict:
    """Organisation A's inbound truth: each queue's plan, state and day, and the messages."""
    return httpx.get(f"{sim.control_url}/inbound", timeout=10).json()


def csv_rows(client, path) -> list[dict]:
    r = client.get(path, params={"format": "csv"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(r.text)))

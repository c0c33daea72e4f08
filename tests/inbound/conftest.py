import csv
import io

import httpx
import pytest

from dashboard.testing.servers import start_dashboard


@pytest.fixture
def served(sim_factory, tmp_path):
    """A simulated tenant whose inbound day starts empty and holds still (the model's own
    callers and messages stop), and a dashboard reading it every 0.3 s."""
    sim = sim_factory("--faults", "--seed", "7")
    sim.control("inbound-reset")
    server = start_dashboard(sim, tmp_path, {"INBOUND_POLL_S": "0.3"})
    server.add_user("bob", "supervisor")
    server.add_user("alice", "manager")
    yield sim, server
    server.stop()


def truth(sim) -> dict:
    return httpx.get(f"{sim.control_url}/inbound", timeout=10).json()


def csv_rows(client, path) -> list[dict]:
    r = client.get(path, params={"format": "csv"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(r.text)))

import pytest

from dashboard.testing.processes import free_port
from dashboard.testing.servers import WEBHOOK_SECRET, dashboard_on
from dashboard.testing.simulator import start_simulator


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A simulated tenant and a dashboard following it, with a Manager (mia), two
    Supervisors (bob, sue), a Wallboard viewer (wally)."""
    port = free_port()
    hook = ("--webhook-url", f"http://127.0.0.1:{port}/webhooks/service/")
    sim = start_simulator(
        "--faults", "--seed", "7", "--agents", "12", *hook, "--webhook-secret", WEBHOOK_SECRET
    )
    with dashboard_on(
        sim,
        tmp_path_factory.mktemp("act"),
        port=port,
        people={
            "mia": "manager",
            "bob": "supervisor",
            "sue": "supervisor",
            "wally": "wallboard",
        },
    ) as server:
        yield sim, server

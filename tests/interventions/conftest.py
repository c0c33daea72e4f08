import pytest

from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A simulated tenant and a dashboard following it, with a Manager (mia), two
    Supervisors (bob, sue), a Wallboard viewer (wally)."""
    sim = start_simulator("--faults", "--seed", "7", "--agents", "12")
    server = None
    try:
        server = start_dashboard(sim, tmp_path_factory.mktemp("act"))
        for name, role in (("mia", "manager"), ("bob", "supervisor"), ("sue", "supervisor")):
            server.add_user(name, role)
        server.add_user("wally", "wallboard")
        yield sim, server
    finally:
        if server:
            server.stop()
        sim.stop()

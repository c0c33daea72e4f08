import pytest

from dashboard.testing.servers import start_dashboard


@pytest.fixture
def served(sim_factory, tmp_path):
    """A simulated tenant whose inbound day starts empty and holds still (the model's own
    callers and messages stop), and a dashboard reading it every 0.3 s."""
    sim = sim_factory("--faults", "--seed", "7")
    sim.control("inbound-reset")
    server = start_dashboard(
        sim, tmp_path, {"INBOUND_POLL_S": "0.3"}, people={"bob": "supervisor", "alice": "manager"}
    )
    yield sim, server
    server.stop()

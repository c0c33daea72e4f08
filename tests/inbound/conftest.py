import pytest

from dashboard.testing.inbound import inbound_dashboard


@pytest.fixture
def served(sim_factory, tmp_path):
    """A simulated tenant and a dashboard reading its inbound side (`inbound_dashboard`)."""
    sim = sim_factory("--faults", "--seed", "7")
    server = inbound_dashboard(sim, tmp_path)
    yield sim, server
    server.stop()

from datetime import UTC, datetime

import pytest
from django.core.cache import cache

from dashboard.testing.processes import free_port


@pytest.fixture(autouse=True)
def empty_cache():
    """Names, tiles and summaries live in the (process-wide) cache: every test starts
    without them."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def midday(settings):
    """The organisation's zone set where it is about noon now, so "today" has hours behind
    it whenever the test runs."""
    offset = 12 - datetime.now(UTC).hour  # Etc/GMT zones name the offset with its sign flipped
    settings.TIME_ZONE = f"Etc/GMT{-offset:+d}" if offset else "UTC"
    return settings.TIME_ZONE


def point_at(settings, sim):
    settings.UPSTREAM_BASE_URL = sim.base_url
    settings.UPSTREAM_AUTH_URL = sim.auth_url
    settings.UPSTREAM_ANON_KEY = sim.anon_key
    settings.UPSTREAM_EMAIL = sim.email_a
    settings.UPSTREAM_PASSWORD = sim.password


@pytest.fixture
def service(module_simulator, settings):
    """Pages ask the module's simulated tenant."""
    point_at(settings, module_simulator)
    return module_simulator


@pytest.fixture
def no_service(settings):
    """Pages ask a port where nothing listens."""
    url = f"http://127.0.0.1:{free_port()}"
    settings.UPSTREAM_BASE_URL, settings.UPSTREAM_AUTH_URL = f"{url}/api", url


@pytest.fixture
def aim(settings):
    """Point pages at a simulated tenant of the test's own (one with faults)."""
    return lambda sim: point_at(settings, sim)

"""The harness's pytest fixtures (tests/conftest.py loads this plugin)."""

import os

import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.test import override_settings

from dashboard.accounts.roles import GROUP_NAMES, MANAGER, SUPERVISOR, WALLBOARD
from dashboard.upstream.webhooks import ORGANIZATION_KEY, remember_organization

from . import browsers, deliveries, stores
from .people import make_user
from .processes import free_port
from .servers import WEBHOOK_SECRET, start_dashboard
from .simulator import start_simulator

# Limits that make real time pass slowly in the product, shortened for every dashboard the
# tests start (they inherit this environment). Each is a setting; the shell's value wins.
FAST_HASHER = "django.contrib.auth.hashers.MD5PasswordHasher"
TEST_SETTINGS = {
    "LIVE_HEARTBEAT_S": "1",  # a quiet floor's push; the upstream status lapses after 3
    "LIVE_STALE_AFTER_S": "3",  # browsers say "stale" after this long without a message
    "PASSWORD_HASHERS": FAST_HASHER,  # a sign-in or a new user: not a second of CPU each
}
for _name, _value in TEST_SETTINGS.items():
    os.environ.setdefault(_name, _value)
# The suite starts hundreds of Python children (servers, management commands): each would
# compile the project's modules again without their cached bytecode (a fifth of a start).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


# ---- The test database -----------------------------------------------------------------
@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """SQLite's tests get a file (WAL, as the product's own), not the shared in-memory
    database: there a reader's table lock fails a writer at once, whatever the busy timeout
    (a sign-out's session delete while a socket reads the session, say)."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        db.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("db") / "test.sqlite3")


@pytest.fixture(scope="session", autouse=True)
def fast_password_hasher():
    """The tests' own users are hashed fast too (Django's default costs a second each)."""
    with override_settings(PASSWORD_HASHERS=[FAST_HASHER]):
        yield


# ---- People -----------------------------------------------------------------------------
@pytest.fixture
def alice(db):
    """A Manager."""
    return make_user("alice", MANAGER)


@pytest.fixture
def bob(db):
    """A Supervisor."""
    return make_user("bob", SUPERVISOR)


@pytest.fixture
def carol(db):
    """A Wallboard viewer."""
    return make_user("carol", WALLBOARD)


@pytest.fixture
def dave(db):
    """Signed in, but with no role at all."""
    return make_user("dave")


@pytest.fixture
def role_groups(db):
    """The role groups the data migration makes (a transactional test before this one, in
    the same worker, flushed them)."""
    for name in GROUP_NAMES.values():
        Group.objects.get_or_create(name=name)


@pytest.fixture
def client_for(client):
    """A test client signed in as the given user."""

    def sign_in(user):
        client.force_login(user)
        return client

    return sign_in


@pytest.fixture
def organization():
    """The organisation the bridge would have learned at sign-in ("org"), for tests that
    post deliveries in process."""
    remember_organization("org")
    yield "org"
    cache.delete(ORGANIZATION_KEY)


@pytest.fixture
def webhook_secrets(organization):
    """The receiver configured with the two secrets deliveries.SECRETS (a rotation)."""
    with override_settings(UPSTREAM_WEBHOOK_SECRETS=deliveries.SECRETS):
        yield deliveries.SECRETS


# ---- The simulated tenant ---------------------------------------------------------------
@pytest.fixture
def sim_factory():
    """Start simulators with the given `manage.py simulate` arguments; stopped after."""
    started = []

    def make(*args, **kwargs):
        sim = start_simulator(*args, **kwargs)
        started.append(sim)
        return sim

    yield make
    for sim in started:
        sim.stop()


@pytest.fixture
def simulator(sim_factory):
    """A simulated tenant of the test's own, with its fault controls."""
    return sim_factory("--faults", "--seed", "7")


@pytest.fixture(scope="module")
def module_simulator():
    """One simulated tenant for a whole module, for tests that only read from it (no
    fault, no pause): a start saved per test."""
    sim = start_simulator("--faults", "--seed", "7")
    yield sim
    sim.stop()


@pytest.fixture
def worker_ports():
    """Two free ports for the web workers of a production topology (`start_topology`)."""
    return [free_port(), free_port()]


@pytest.fixture
def hooked_simulator(sim_factory, worker_ports):
    """A simulated tenant of the test's own whose signed webhooks go to the first web
    worker of `worker_ports` (the topology's `UPSTREAM_WEBHOOK_SECRETS`)."""
    hook = f"http://127.0.0.1:{worker_ports[0]}/webhooks/service/"
    return sim_factory(
        "--faults", "--seed", "7", "--webhook-url", hook, "--webhook-secret", WEBHOOK_SECRET
    )


# ---- The dashboard and a browser ----------------------------------------------------------
@pytest.fixture
def dashboard_server(simulator, tmp_path):
    server = start_dashboard(simulator, tmp_path)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    """Chromium for one test module: Playwright's sync API holds an event loop while it
    runs, which the asyncio tests of later modules must not find."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = browsers.launch(p)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    pg = context.new_page()
    yield pg
    context.close()


# ---- Redis and PostgreSQL -----------------------------------------------------------------
@pytest.fixture
def redis_url():
    """A fresh, empty Redis; its URL."""
    with stores.redis_server() as url:
        yield url


@pytest.fixture(scope="session")
def postgres_server():
    with stores.postgres_server() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server):
    """A fresh PostgreSQL database for one test, migrated (a copy of a template); its URL."""
    return postgres_server.new_database()

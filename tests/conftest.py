"""Shared fixtures: the people who sign in (one per role) and a signed-in test client."""

import pytest
from django.contrib.auth.models import Group, User
from django.core.cache import cache

from dashboard.accounts.roles import GROUP_NAMES, MANAGER, SUPERVISOR, WALLBOARD
from dashboard.upstream.webhooks import ORGANIZATION_KEY, remember_organization

pytest_plugins = ["tests.simulator_process", "tests.servers", "tests.stores"]

PASSWORD = "correct horse battery"


def make_user(username, role=None):
    user = User.objects.create_user(username, password=PASSWORD)
    if role:
        # get_or_create: transactional tests flush the groups the data migration made.
        user.groups.add(Group.objects.get_or_create(name=GROUP_NAMES[role])[0])
    return user


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

import pytest

from dashboard.testing.links import make_link


@pytest.fixture
def link(db):
    return make_link()

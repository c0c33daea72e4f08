import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def empty_cache():
    """The summaries live in the (process-wide) cache: every test starts without them."""
    cache.clear()
    yield
    cache.clear()

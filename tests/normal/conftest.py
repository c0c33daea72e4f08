"""The normal's tests run in a zone where it is about 11:00 now."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest


@pytest.fixture
def zone(settings):
    """A zone where it is about 11:00 now, so today has a morning of whole slots."""
    hours = (11 - datetime.now(UTC).hour + 12) % 24 - 12
    settings.TIME_ZONE = f"Etc/GMT{-hours:+d}"
    return ZoneInfo(settings.TIME_ZONE)

"""Kiosk links made straight in the database, for the tests that start from one."""

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.wallboard.models import PANELS, KioskLink


def make_link(name="Sales floor TV", expires_in=timedelta(days=7), revoked=False, **fields):
    return KioskLink.objects.create(
        name=name,
        panels=fields.pop("panels", [key for key, _ in PANELS]),
        expires_at=timezone.now() + expires_in,
        revoked_at=timezone.now() if revoked else None,
        **fields,
    )


def tampered(token: str) -> str:
    """The same token with one character of its signature changed."""
    last = token[-1]
    return token[:-1] + ("A" if last != "A" else "B")


@pytest.fixture
def link(db):
    return make_link()

"""The periodic access check looks each session up once an interval, however many sockets
it has open in the process, and closes all of that session's sockets (and no others) when
its access is gone."""

from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import override_settings

from dashboard.accounts import sockets
from dashboard.testing.processes import await_until

from .test_socket_access import closed_with, open_socket, signed_in, still_open

pytestmark = pytest.mark.django_db(transaction=True)


@override_settings(SOCKET_RECHECK_S=0.5)
async def test_one_lookup_per_session_and_interval_whatever_its_sockets(alice, bob):
    lookups: list[str] = []
    real = sockets.session_role

    def counted(session_key):
        lookups.append(session_key)
        return real(session_key)

    with mock.patch.object(sockets, "session_role", counted):
        tabs = await sync_to_async(signed_in)(alice)
        other = await sync_to_async(signed_in)(bob)
        many = [await open_socket(tabs, "/ws/live/") for _ in range(5)]
        one = await open_socket(other, "/ws/live/")
        alone = other.session.session_key
        await await_until(lambda: lookups.count(alone) >= 3, 20, "three rounds of checks")
        shared = lookups.count(tabs.session.session_key)
        assert 2 <= shared <= lookups.count(alone) + 1  # five sockets, one lookup each round

        await User.objects.filter(pk=alice.pk).aupdate(is_active=False)  # no signal sees it
        for ws in many:
            assert await closed_with(ws, timeout=10) == 4401
        assert await still_open(one)
        await one.disconnect()

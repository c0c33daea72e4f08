"""The live socket lets in only signed-in people with a role, from an allowed origin."""

import pytest
from asgiref.sync import sync_to_async

from dashboard.testing.sockets import closed_with, communicator, session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)


async def test_it_closes_a_signed_out_socket_with_4401():
    assert await closed_with(communicator()) == 4401


async def test_it_closes_a_socket_of_a_user_without_a_role(dave):
    ws = communicator(await sync_to_async(session_cookie_for)(dave))
    assert await closed_with(ws) == 4401


async def test_it_refuses_a_foreign_origin(bob):
    ws = communicator(await sync_to_async(session_cookie_for)(bob), origin=b"http://evil.example")
    connected, _ = await ws.connect()
    assert connected is False


async def test_it_accepts_a_signed_in_supervisor(bob):
    ws = communicator(await sync_to_async(session_cookie_for)(bob))
    connected, _ = await ws.connect()
    assert connected is True
    await ws.disconnect()

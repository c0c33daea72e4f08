"""The live socket lets in only signed-in people with a role, from an allowed origin."""

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore

from config.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


def session_cookie_for(user):
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}".encode()


def communicator(cookie=b"", origin=b"http://127.0.0.1:8000", path="/ws/live/"):
    headers = [(b"origin", origin), (b"host", b"127.0.0.1:8000")]
    if cookie:
        headers.append((b"cookie", cookie))
    return WebsocketCommunicator(application, path, headers=headers)


async def socket_for(user, path="/ws/live/"):
    """A websocket of `user`'s signed-in browser, not yet connected."""
    from asgiref.sync import sync_to_async

    return communicator(await sync_to_async(session_cookie_for)(user), path=path)


async def closed_with(ws):
    """The code a socket was closed with right after its handshake (the handshake itself
    succeeds, so that the browser learns why)."""
    connected, _ = await ws.connect()
    assert connected
    out = await ws.receive_output(timeout=2)
    assert out["type"] == "websocket.close"
    return out["code"]


async def test_it_closes_a_signed_out_socket_with_4401():
    assert await closed_with(communicator()) == 4401


async def test_it_closes_a_socket_of_a_user_without_a_role(dave):
    from asgiref.sync import sync_to_async

    ws = communicator(await sync_to_async(session_cookie_for)(dave))
    assert await closed_with(ws) == 4401


async def test_it_refuses_a_foreign_origin(bob):
    from asgiref.sync import sync_to_async

    ws = communicator(await sync_to_async(session_cookie_for)(bob), origin=b"http://evil.example")
    connected, _ = await ws.connect()
    assert connected is False


async def test_it_accepts_a_signed_in_supervisor(bob):
    from asgiref.sync import sync_to_async

    ws = communicator(await sync_to_async(session_cookie_for)(bob))
    connected, _ = await ws.connect()
    assert connected is True
    await ws.disconnect()

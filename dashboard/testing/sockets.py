"""Browsers' websockets in the test's own process (channels' WebsocketCommunicator on the
real ASGI application), signed in with a session made straight in the database."""

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore

from config.asgi import application
from dashboard.testing.processes import await_until

ORIGIN = b"http://127.0.0.1:8000"
WAIT_S = 10  # for what must come (channels' default, 1 s, fails on a loaded machine)


class Communicator(WebsocketCommunicator):
    """channels' communicator, waiting for what must come as long as a loaded machine
    takes; what must not come is still waited for with `receive_nothing`'s own timeout."""

    async def connect(self, timeout=WAIT_S):
        return await super().connect(timeout)

    async def receive_from(self, timeout=WAIT_S):
        return await super().receive_from(timeout)

    async def receive_json_from(self, timeout=WAIT_S):
        return await super().receive_json_from(timeout)


def session_cookie_for(user) -> bytes:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"  # not axes
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}".encode()


def communicator(cookie=b"", origin=ORIGIN, path="/ws/live/"):
    headers = [(b"origin", origin), (b"host", b"127.0.0.1:8000")]
    if cookie:
        headers.append((b"cookie", cookie))
    return Communicator(application, path, headers=headers)


async def socket_for(user, path="/ws/live/"):
    """A websocket of `user`'s signed-in browser, not yet connected."""
    return communicator(await sync_to_async(session_cookie_for)(user), path=path)


async def following(group: str, timeout: float = 5):
    """Wait until a socket of this process has joined `group` (the in-memory layer's): a
    push sent before that reaches no one, as it would reach no browser yet."""

    def joined():
        return get_channel_layer().groups.get(group)

    await await_until(joined, timeout, f"a socket in {group}", interval=0.01)


async def closed_with(ws) -> int:
    """The code a socket was closed with right after its handshake (the handshake itself
    succeeds, so that the browser learns why)."""
    connected, _ = await ws.connect()
    assert connected
    out = await ws.receive_output(timeout=2)
    assert out["type"] == "websocket.close"
    return out["code"]

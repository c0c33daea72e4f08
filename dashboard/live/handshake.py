"""Websocket handshakes that never wait in Django's one shared sync thread.

Under ASGI every sync view runs in one thread (`thread_sensitive=True`), and so do
Channels' session and user lookups (`database_sync_to_async`) and its connection cleanup
before each consumer handler. A sign-in's password hash (PBKDF2, about 0.5 s here) holds
that thread, so 20 people signing in kept 500 browsers reconnecting after a deploy waiting
for it, past autobahn's 5 s opening-handshake limit (docs/performance.md). Here the
websocket path does its database work in the loop's worker threads instead; each call
closes its own old connections, as Channels' does.
"""

from types import SimpleNamespace

from channels.auth import AuthMiddleware
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.contrib import auth


def in_thread(fn):
    """`fn` in a worker thread of the loop's pool, not Django's shared sync thread."""
    return database_sync_to_async(fn, thread_sensitive=False)


def user_of(scope):
    """Django's own `get_user` (session hash checks included) on the socket's session."""
    return auth.get_user(SimpleNamespace(session=scope["session"]))


class ThreadedAuthMiddleware(AuthMiddleware):
    async def resolve_scope(self, scope):
        scope["user"]._wrapped = await in_thread(user_of)(scope)


def AuthMiddlewareStack(inner):  # Channels' name, and stack, with the user looked up in a thread
    return CookieMiddleware(SessionMiddleware(ThreadedAuthMiddleware(inner)))

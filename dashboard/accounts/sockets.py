"""A signed-in person's open sockets keep only the access that person still has.

A socket is let in with the access of its connect time; afterwards its person may sign
out, lose a role or be deactivated. Each such change is sent to the person's group (which
crosses workers with Redis) and their sockets check again. Each socket also checks every
SOCKET_RECHECK_S, for what no signal sees (an expired session, a row changed in bulk, a
change made by another process on the single-machine in-memory layer), and lives at most
SOCKET_MAX_AGE_S: then it closes with 1012, which htmx retries, so the browser reconnects
and is let in afresh. A socket that lost access closes with 4401 or 4403, which htmx does
not retry, and the page says "signed out".
"""

import asyncio
import logging
import random
from importlib import import_module
from types import SimpleNamespace

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib import auth
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete

from dashboard.shared.close_codes import CLOSE_FORBIDDEN, CLOSE_RESTARTING, CLOSE_SIGNED_OUT

from . import rechecks
from .roles import RANK, user_role

log = logging.getLogger("dashboard.accounts.sockets")


def person_group(user_id) -> str:
    return f"person-{user_id}"


def session_role(session_key: str | None) -> str | None:
    """The role a session gives now: None once it has ended (signed out, expired, the
    password changed) or its person is inactive or has no role."""
    if not session_key:
        return None
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    return user_role(auth.get_user(SimpleNamespace(session=session)))  # as a request would


async def current_role(scope) -> str | None:
    # Not in Django's one shared sync thread, which the pages and the fan-out wait on.
    check = database_sync_to_async(session_role, thread_sensitive=False)
    return await check(scope["session"].session_key)


class AccessGuard:
    """Mixin for the consumers of signed-in people: `guard()` once accepted, `unguard()`
    on disconnect; `minimum_role` is the role the socket needs."""

    minimum_role: str
    watcher: asyncio.Task | None = None

    async def guard(self):
        await self.channel_layer.group_add(person_group(self.scope["user"].pk), self.channel_name)
        rechecks.of_loop(session_role).add(self.scope["session"].session_key, self)
        self.watcher = asyncio.ensure_future(self.watch())

    async def unguard(self):
        if self.watcher:
            self.watcher.cancel()
            rechecks.of_loop(session_role).discard(self.scope["session"].session_key, self)
            await self.channel_layer.group_discard(
                person_group(self.scope["user"].pk), self.channel_name
            )

    async def watch(self):
        # Spread over the last tenth, so sockets opened together do not all come back at once.
        await asyncio.sleep(settings.SOCKET_MAX_AGE_S * random.uniform(0.9, 1.0))
        await self.close(code=CLOSE_RESTARTING)

    async def still_allowed(self) -> bool:
        return await self.allowed(await current_role(self.scope))

    async def allowed(self, role: str | None) -> bool:
        if role is not None and RANK[role] >= RANK[self.minimum_role]:
            return True
        await self.close(code=CLOSE_SIGNED_OUT if role is None else CLOSE_FORBIDDEN)
        return False

    async def recheck(self, role: str | None, failed: bool = False) -> bool:
        """The periodic check's answer for this socket's session (rechecks.py); `failed`:
        the lookup failed (the database away), so the browser reconnects and signs in afresh.
        False when the socket was closed."""
        if not failed:
            return await self.allowed(role)
        await self.close(code=CLOSE_RESTARTING)
        return False

    async def access_changed(self, event):
        if event.get("ended_session") == self.scope["session"].session_key:
            await self.close(code=CLOSE_SIGNED_OUT)  # signed out: the session goes next
        else:
            await self.still_allowed()


# ---- What changes a person's access -----------------------------------------------------------
def tell(user_ids, ended_session: str | None = None):
    """Ask these people's open sockets to check their access, once the change is committed."""
    message = {"type": "access.changed", "ended_session": ended_session}

    def send():
        layer = get_channel_layer()
        for user_id in user_ids:
            async_to_sync(layer.group_send)(person_group(user_id), message)

    if user_ids:
        transaction.on_commit(send)


def signed_out(sender, request, user, **kwargs):
    if user is not None:
        tell([user.pk], getattr(request.session, "session_key", None))


def user_saved(sender, instance, update_fields=None, **kwargs):
    if update_fields is None or set(update_fields) != {"last_login"}:  # not each sign-in
        tell([instance.pk])


def user_deleted(sender, instance, **kwargs):
    tell([instance.pk])


def roles_changed(sender, instance, action, reverse, pk_set, **kwargs):
    """A person's groups changed (`user.groups`), or a group's people (`group.user_set`)."""
    if action in ("post_add", "post_remove"):
        tell(sorted(pk_set) if reverse else [instance.pk])
    elif action == "pre_clear":
        tell(list(instance.user_set.values_list("pk", flat=True)) if reverse else [instance.pk])


def group_deleted(sender, instance, **kwargs):
    tell(list(instance.user_set.values_list("pk", flat=True)))


def connect_signals():
    user = get_user_model()
    user_logged_out.connect(signed_out, dispatch_uid="sockets-signed-out")
    post_save.connect(user_saved, sender=user, dispatch_uid="sockets-user-saved")
    post_delete.connect(user_deleted, sender=user, dispatch_uid="sockets-user-deleted")
    m2m_changed.connect(roles_changed, sender=user.groups.through, dispatch_uid="sockets-roles")
    pre_delete.connect(group_deleted, sender=Group, dispatch_uid="sockets-group-deleted")

"""An open socket keeps only the access its person still has: sign-out, a role taken away
and deactivation close it at once (4401/4403, which htmx does not retry), a change no
signal sees within SOCKET_RECHECK_S (one lookup per session and interval, however many
sockets it has open), and every socket reconnects (1012) after at most
SOCKET_MAX_AGE_S."""

from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.test import Client, override_settings

from config.asgi import application
from dashboard.accounts import sockets
from dashboard.accounts.roles import GROUP_NAMES, WALLBOARD
from dashboard.testing.processes import await_until
from dashboard.testing.sockets import Communicator

pytestmark = pytest.mark.django_db(transaction=True)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


async def open_socket(client: Client, path: str) -> Communicator:
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    ws = Communicator(
        application,
        path,
        headers=[
            (b"origin", b"http://127.0.0.1:8000"),
            (b"host", b"127.0.0.1:8000"),
            (b"cookie", cookie.encode()),
        ],
    )
    connected, _ = await ws.connect()
    assert connected
    await ws.receive_nothing(0.3)  # let the snapshot go by
    while not await ws.receive_nothing(0.1):
        out = await ws.receive_output()
        assert out["type"] == "websocket.send", out
    return ws


async def closed_with(ws: Communicator, timeout=3.0) -> int:
    while True:
        out = await ws.receive_output(timeout)
        if out["type"] == "websocket.close":
            return out["code"]


async def still_open(ws: Communicator) -> bool:
    while not await ws.receive_nothing(0.5):
        if (await ws.receive_output())["type"] == "websocket.close":
            return False
    return True


async def test_signing_out_closes_that_sessions_sockets_and_no_others(alice):
    browser = await sync_to_async(signed_in)(alice)
    other_browser = await sync_to_async(signed_in)(alice)
    coaching = await open_socket(browser, "/ws/coaching/")
    live = await open_socket(browser, "/ws/live/")
    elsewhere = await open_socket(other_browser, "/ws/coaching/")
    r = await sync_to_async(browser.post)("/accounts/logout/")
    assert r.status_code == 302
    assert await closed_with(coaching) == 4401
    assert await closed_with(live) == 4401
    assert await still_open(elsewhere)  # alice's other browser is still signed in
    await elsewhere.disconnect()


async def role(name):
    return (await Group.objects.aget_or_create(name=GROUP_NAMES[name]))[0]


async def test_losing_a_role_closes_the_sockets_that_needed_it_with_4403(alice):
    browser = await sync_to_async(signed_in)(alice)
    coaching = await open_socket(browser, "/ws/coaching/")
    live = await open_socket(browser, "/ws/live/")
    await sync_to_async(alice.groups.set)([await role(WALLBOARD)])  # demoted
    assert await closed_with(coaching) == 4403
    assert await still_open(live)  # a wallboard viewer may still watch the live view
    await sync_to_async((await role(WALLBOARD)).user_set.remove)(alice)  # from the group's side
    assert await closed_with(live) == 4401  # no role at all


async def test_deactivation_closes_every_socket_with_4401(alice):
    browser = await sync_to_async(signed_in)(alice)
    coaching = await open_socket(browser, "/ws/coaching/")
    alice.is_active = False
    await alice.asave()
    assert await closed_with(coaching) == 4401


async def test_a_group_deleted_takes_its_peoples_access(alice):
    browser = await sync_to_async(signed_in)(alice)
    coaching = await open_socket(browser, "/ws/coaching/")
    await (await role("manager")).adelete()
    assert await closed_with(coaching) == 4401


@override_settings(SOCKET_RECHECK_S=0.5)
async def test_a_change_no_signal_sees_is_caught_by_the_periodic_check(alice):
    browser = await sync_to_async(signed_in)(alice)
    coaching = await open_socket(browser, "/ws/coaching/")
    await User.objects.filter(pk=alice.pk).aupdate(is_active=False)  # no post_save
    assert await closed_with(coaching, timeout=3) == 4401


# 2 s, not 1: on a loaded machine the close could come while open_socket still reads
@override_settings(SOCKET_MAX_AGE_S=2.0)
async def test_a_socket_reconnects_after_its_maximum_age(alice):
    browser = await sync_to_async(signed_in)(alice)
    coaching = await open_socket(browser, "/ws/coaching/")
    assert await closed_with(coaching, timeout=3) == 1012  # htmx reconnects after 1012
    again = await open_socket(browser, "/ws/coaching/")  # and is let in afresh
    await again.disconnect()


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

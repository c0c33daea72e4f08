"""The header's status socket (/ws/status/), which every signed-in page without a socket of
its own opens: the service's status and the alert tray at once, then their pushes; nothing
of the floor; closed for good without a session."""

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache

from dashboard.shared.cache_keys import COACHING_OFFERS_KEY, STATUS_KEY, alerts_key
from dashboard.shared.close_codes import CLOSE_SIGNED_OUT
from dashboard.shared.groups import ALERTS, LIVE_GROUP, STATUS_GROUP
from dashboard.testing.sockets import closed_with, communicator, following, socket_for

pytestmark = pytest.mark.django_db(transaction=True)
STATUS = {"state": "connected", "reason": "", "since": "", "ai_enabled": True, "ai_share_pct": 12}


async def test_it_sends_the_status_and_the_tray_then_their_pushes_and_nothing_of_the_floor(bob):
    await sync_to_async(cache.set_many)(
        {
            STATUS_KEY: STATUS,
            alerts_key(ALERTS): '<div id="alert-tray">tray</div>',
            COACHING_OFFERS_KEY: "",  # no offers (another test of this process may have set some)
        }
    )
    layer = get_channel_layer()
    floor_before = set(layer.groups.get(LIVE_GROUP, {}))  # other tests' sockets, if any
    ws = await socket_for(bob, path="/ws/status/")
    assert (await ws.connect())[0]
    status = await ws.receive_from(timeout=2)
    assert 'id="upstream"' in status and 'data-state="connected"' in status
    assert "AI dialing on" in status and "12% of today" in status
    assert await ws.receive_from(timeout=2) == '<div id="alert-tray">tray</div>'
    await following(STATUS_GROUP)
    await following(ALERTS)
    await layer.group_send(STATUS_GROUP, {"type": "push.html", "html": "<p>status</p>"})
    assert await ws.receive_from(timeout=2) == "<p>status</p>"
    await layer.group_send(ALERTS, {"type": "push.html", "html": "<p>tray</p>"})
    assert await ws.receive_from(timeout=2) == "<p>tray</p>"
    # The floor's pushes are not this socket's.
    assert set(layer.groups.get(LIVE_GROUP, {})) == floor_before
    await ws.disconnect()


async def test_without_a_session_it_closes_for_good():
    assert await closed_with(communicator(path="/ws/status/")) == CLOSE_SIGNED_OUT

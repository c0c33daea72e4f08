"""Websockets: the Origin must be this server's own (scheme, host and port), an unknown
path is closed cleanly, and no traceback prints a kiosk token."""

import io
import logging

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings

from config.asgi import application
from dashboard.shared.logs import JsonFormatter
from dashboard.testing.sockets import Communicator, session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)
HOST = b"127.0.0.1:8000"


async def handshake(cookie, origin: bytes, host=HOST, path="/ws/live/", **extra):
    headers = [(b"origin", origin), (b"host", host), (b"cookie", cookie)]
    headers += [(k.encode(), v.encode()) for k, v in extra.items()]
    ws = Communicator(application, path, headers=headers)
    connected, _ = await ws.connect()
    await ws.disconnect()
    return connected


@pytest.mark.parametrize(
    ("origin", "host", "let_in"),
    [
        (b"http://127.0.0.1:8000", HOST, True),
        (b"http://127.0.0.1:8001", HOST, False),  # another port of the same host
        (b"https://127.0.0.1:8000", HOST, False),  # another scheme
        (b"http://127.0.0.1", HOST, False),  # the default port is 80
        (b"http://localhost", b"localhost:80", True),  # ...and may be left out
        (b"http://evil.example", b"evil.example", False),  # its own, but not an allowed host
        (b"null", HOST, False),
        (b"", HOST, False),
        (b"http://127.0.0.1:notaport", HOST, False),
    ],
)
async def test_only_the_servers_own_origin_may_open_a_socket(bob, origin, host, let_in):
    cookie = await sync_to_async(session_cookie_for)(bob)
    assert await handshake(cookie, origin, host) is let_in


@override_settings(SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"))
async def test_behind_a_tls_proxy_the_origin_is_https(bob):
    cookie = await sync_to_async(session_cookie_for)(bob)
    tls = {"x-forwarded-proto": "https"}
    assert await handshake(cookie, b"https://127.0.0.1:8000", **tls)
    assert not await handshake(cookie, b"http://127.0.0.1:8000", **tls)
    assert not await handshake(cookie, b"https://127.0.0.1:8000")  # the proxy did not say TLS


@override_settings(CSRF_TRUSTED_ORIGINS=["https://dashboard.example.com"])
async def test_a_trusted_origin_may_open_a_socket(bob):
    cookie = await sync_to_async(session_cookie_for)(bob)
    assert await handshake(cookie, b"https://dashboard.example.com")


@pytest.mark.parametrize("path", ["/ws/nothing/", "/ws/wallboard/some-token/extra/", "/"])
async def test_an_unknown_socket_path_is_closed_with_4404(path):
    ws = Communicator(
        application, path, headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", HOST)]
    )
    connected, _ = await ws.connect()
    assert connected
    out = await ws.receive_output(timeout=2)
    assert (out["type"], out["code"]) == ("websocket.close", 4404)


@pytest.mark.parametrize("formatter", [None, JsonFormatter()], ids=["text", "json"])
def test_a_traceback_never_prints_a_kiosk_token(formatter):
    """As Daphne logged the unknown path's error; through the console handler of LOGGING,
    in either LOG_FORMAT."""
    (console,) = [h for h in logging.getLogger().handlers if h.get_name() == "console"]
    out = io.StringIO()
    before, text = console.setStream(out), console.formatter
    console.setFormatter(formatter or text)
    try:
        raise ValueError("No route found for path 'ws/wallboard/secret-token-123/x/'.")
    except ValueError as exc:
        logging.getLogger("daphne.server").error(
            "Exception inside application: %s", exc, exc_info=exc
        )
    finally:
        console.setStream(before)
        console.setFormatter(text)
    err = out.getvalue()
    assert "Traceback" in err and "ValueError" in err
    assert "secret-token-123" not in err and "/wallboard/[redacted]" in err

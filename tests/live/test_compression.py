"""permessage-deflate over real sockets against `manage.py serve` with the simulator in load
mode: a browser's offer is accepted, every frame it is sent (the whole view and the pushes
on the fan-out's path, other messages on Daphne's) is compressed on its own and reads the
same as an uncompressed socket's, a client's smaller window is kept to, and a message that
inflates past the limit fails its socket, not the server."""

import contextlib
import zlib

import pytest

from dashboard.testing.processes import wait_until
from dashboard.testing.raw_socket import CLOSE, RawSocket, Reading
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

WHOLE_VIEW = '<div id="agents" class="agents">'
CHROMIUM_OFFER = "permessage-deflate; client_max_window_bits"
SMALL_WINDOW = "permessage-deflate; client_max_window_bits; server_max_window_bits=10"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    sim = start_simulator("--agents", 500, "--events-per-second", 100, "--seed", 3)
    try:
        server = start_dashboard(
            sim, tmp_path_factory.mktemp("deflate"), people={"sup": "supervisor"}
        )
        try:
            cookie = "Cookie: " + server.session_cookie("sup")

            def socket(path="/ws/live/", **kwargs) -> RawSocket:
                return RawSocket(server.url, path, [cookie], **kwargs)

            yield server, socket
            assert "Traceback" not in server.log()
        finally:
            server.stop()
    finally:
        sim.stop()  # also when the dashboard failed to start: nothing outlives the module


def test_compressed_sockets_read_the_same_frames_as_a_plain_one_in_a_tenth_of_the_bytes(live):
    server, socket = live
    sockets = [socket(deflate=CHROMIUM_OFFER), socket(deflate=SMALL_WINDOW), socket()]
    assert sockets[0].extensions.startswith("permessage-deflate")
    assert "server_max_window_bits=10" in sockets[1].extensions
    assert sockets[2].extensions == ""
    for ws in sockets:
        assert WHOLE_VIEW in ws.text()  # the whole view, compressed once by the hub
    assert [ws.compressed for ws in sockets] == [1, 1, 0]
    readers = [Reading(ws) for ws in sockets]
    # The plain one connected last: from its fourth frame on, the others had the same
    wait_until(lambda: len(readers[-1].frames) >= 20, 30, "20 frames on the plain socket")
    got = [[text for _, text in reader.stop()] for reader in readers]
    plain = got[-1][3:18]
    for texts in got[:-1]:
        assert plain[0] in texts, "a compressed socket missed a frame the plain one was sent"
        start = texts.index(plain[0])
        assert texts[start : start + 15] == plain
    for ws, texts in zip(sockets[:2], got, strict=False):
        assert ws.compressed == len(texts) + 1  # every frame, the snapshot's too
        # with a 15-bit window the small-window socket's decompressor would have failed
    assert sockets[0].wire * 5 < sockets[2].wire
    for ws in sockets:
        ws.close()


def test_messages_daphne_sends_itself_are_compressed_on_their_own_too(live):
    _, socket = live
    for offer in (CHROMIUM_OFFER, SMALL_WINDOW):
        ws = socket("/ws/status/", deflate=offer)  # its snapshot: the header's status
        assert 'id="upstream"' in ws.text()
        assert ws.compressed == 1
        ws.close()


def test_a_message_that_inflates_past_the_limit_fails_its_socket_only(live):
    server, socket = live
    ws = socket(deflate=CHROMIUM_OFFER)
    assert WHOLE_VIEW in ws.text()
    bomb = b"x" * (2 * 1024 * 1024)  # over REQUEST_BODY_MAX_BYTES (1 MiB), ~2 KB deflated
    assert len(zlib.compress(bomb)) < 10_000
    ws.send(bomb, compressed=True)
    closed = []

    def closing_frame():
        opcode, payload = ws.frame()
        if opcode == CLOSE:
            closed.append(int.from_bytes(payload[:2], "big"))
        return closed

    with contextlib.suppress(ConnectionError):  # the reset that may follow the close
        wait_until(closing_frame, 15, "the socket closed", interval=0)
    assert closed in ([], [1009])  # 1009: message too big
    fresh = socket(deflate=CHROMIUM_OFFER)
    assert WHOLE_VIEW in fresh.text()  # the server serves on
    fresh.close()


def test_with_compression_switched_off_an_offer_is_declined(tmp_path):
    sim = start_simulator("--agents", 20, "--seed", 3)
    plain = start_dashboard(
        sim, tmp_path, {"WEBSOCKET_DEFLATE": "false"}, people={"sup": "supervisor"}
    )
    try:
        cookie = "Cookie: " + plain.session_cookie("sup")
        ws = RawSocket(plain.url, "/ws/live/", [cookie], deflate=CHROMIUM_OFFER)
        assert ws.extensions == "" and WHOLE_VIEW in ws.text() and ws.compressed == 0
        ws.close()
    finally:
        plain.stop()
        sim.stop()

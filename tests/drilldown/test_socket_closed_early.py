"""A browser that closes an agent page's socket while the server sends it the first
frames (the page left at once) costs nothing but the frames: no traceback in the log."""

import os
import struct

from dashboard.testing.raw_socket import RawSocket
from dashboard.testing.servers import start_dashboard

TRIES = 30


def close_at_once(url: str, cookie: str):
    """Open the socket and send a close frame (1001, going away) as soon as it is open."""
    ws = RawSocket(url, "/ws/agents/A001/", [cookie])
    mask = os.urandom(4)
    payload = struct.pack("!H", 1001)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    ws.sock.sendall(bytes([0x88, 0x80 | len(payload)]) + mask + masked)
    ws.close()


def test_closing_during_the_first_send_logs_no_traceback(simulator, tmp_path):
    server = start_dashboard(simulator, tmp_path, people={"sup": "supervisor"})
    try:
        cookie = "Cookie: " + server.session_cookie("sup")
        for _ in range(TRIES):
            close_at_once(server.url, cookie)
        staying = RawSocket(server.url, "/ws/agents/A001/", [cookie])
        while "agent-A001" not in staying.text():  # the header's freshness first
            pass
        staying.close()
        server.stop()  # every consumer done: its log is whole
        log = server.log()
        assert "Attempt to send on a closed protocol" not in log
        assert "Traceback" not in log
    finally:
        server.stop()

"""Request bodies are bounded inside the server (`manage.py serve`), before Django sees
them: refused by Content-Length before a byte is read, capped as they are read (chunked
too), timed out when slow; open websockets are never timed out."""

import socket
import threading
import time
from pathlib import Path

import pytest

from dashboard.testing.processes import let_pass
from dashboard.testing.raw_socket import RawSocket
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

BODY_TIMEOUT_S = 2
LIMIT = 1024 * 1024  # the default REQUEST_BODY_MAX_BYTES


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    sim = start_simulator("--faults", "--seed", 7)
    env = {"REQUEST_BODY_TIMEOUT_S": str(BODY_TIMEOUT_S)}
    server = start_dashboard(
        sim, tmp_path_factory.mktemp("bodies"), env, people={"watcher": "supervisor"}
    )
    yield server
    server.stop()
    sim.stop()


def connect(server) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    return sock


def head(path: str, *headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def answer(sock: socket.socket) -> tuple[int, bytes]:
    """The response's status and body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "closed without an answer"
        data += chunk
    headers, body = data.split(b"\r\n\r\n", 1)
    length = int(headers.lower().split(b"content-length:", 1)[1].split(b"\r\n")[0])
    while len(body) < length:
        body += sock.recv(65536)
    return int(headers.split(b" ", 2)[1]), body


def status_of(sock: socket.socket) -> int:
    return answer(sock)[0]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_a_body_declared_over_the_limit_is_refused_before_it_is_read(server):
    sock = connect(server)
    sock.sendall(head("/webhooks/service/", "Content-Length: 999999999") + b"{}")
    assert status_of(sock) == 413  # at once: the 999,999,998 bytes never come
    sock.close()


def test_a_large_upload_is_answered_while_it_is_sent_and_never_held(server):
    before = peak_rss_mb(server.process.pid)
    sock = connect(server)
    sock.sendall(head("/webhooks/service/", f"Content-Length: {200 * 1024 * 1024}"))
    sending = threading.Thread(target=send_until_refused, args=(sock, 200 * 1024 * 1024))
    sending.start()
    assert status_of(sock) == 413
    sending.join(10)
    assert peak_rss_mb(server.process.pid) - before < 20  # the 200 MiB were never held
    sock.close()


def send_until_refused(sock: socket.socket, total: int):
    chunk = b"x" * 65536
    try:
        for _ in range(total // len(chunk)):
            sock.sendall(chunk)
    except OSError:
        pass  # the server stopped reading and closed: the body was refused


def test_a_chunked_body_is_refused_once_it_grows_past_the_limit(server):
    sock = connect(server)
    sock.sendall(head("/webhooks/service/", "Transfer-Encoding: chunked"))
    chunk = b"%x\r\n%s\r\n" % (65536, b"x" * 65536)
    for _ in range(LIMIT // 65536 - 1):
        sock.sendall(chunk)
    sock.settimeout(0.5)  # under the limit so far: no answer yet
    with pytest.raises(TimeoutError):
        sock.recv(1)
    sock.settimeout(10)
    sock.sendall(chunk * 2)
    assert status_of(sock) == 413
    sock.close()


def test_a_slow_body_is_timed_out(server):
    sock = connect(server)
    sock.sendall(head("/webhooks/service/", "Content-Length: 100") + b"0123456789")
    started = time.monotonic()
    assert status_of(sock) == 408
    assert time.monotonic() - started >= BODY_TIMEOUT_S - 0.2
    sock.close()


def test_an_oversized_body_expecting_100_continue_gets_413_instead(server):
    sock = connect(server)
    sock.sendall(head("/webhooks/service/", "Content-Length: 5000000", "Expect: 100-continue"))
    assert status_of(sock) == 413
    sock.close()


def test_a_body_within_the_limit_reaches_the_dashboard(server):
    """The webhook receiver's own limit (256 KiB) still answers for itself."""
    sock = connect(server)
    body = b"x" * (300 * 1024)
    sock.sendall(head("/webhooks/service/", f"Content-Length: {len(body)}") + body)
    assert answer(sock) == (413, b'{"status": 413, "message": "body over 256 KiB"}')
    sock.close()
    sock = connect(server)
    sock.sendall(head("/webhooks/service/", "Content-Length: 2") + b"{}")
    assert status_of(sock) == 401  # unsigned: Django answered
    sock.close()


def test_an_open_websocket_outlives_the_body_timeout(server):
    ws = RawSocket(
        server.url, "/ws/live/", ["Cookie: " + server.session_cookie("watcher")], timeout=15
    )
    ws.text()  # the snapshot
    let_pass(3 * BODY_TIMEOUT_S, "three body timeouts on an open socket")
    assert ws.text()  # pushes (at least the heartbeat) still arrive
    ws.close()

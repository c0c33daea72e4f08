"""A websocket client on a plain blocking socket: it reads only when asked to, so a test can
be the browser that stops reading. Server frames are unmasked (RFC 6455 5.1). Given an
offer of permessage-deflate, it inflates what the server compressed with one decompressor
for the socket's life, as a browser does (RFC 7692)."""

import base64
import contextlib
import os
import re
import socket
import struct
import threading
import time
import zlib
from urllib.parse import urlsplit

TEXT, CLOSE = 1, 8


def upgrade_request(netloc: str, path: str, headers=()) -> bytes:
    """A websocket handshake's request (RFC 6455 4.1), with these extra header lines."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = [
        f"GET {path or '/'} HTTP/1.1",
        f"Host: {netloc}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        *headers,
    ]
    return ("\r\n".join(request) + "\r\n\r\n").encode()


class RawSocket:
    def __init__(
        self, base_url: str, path: str, headers=(), rcvbuf: int = 0, timeout=10.0, deflate=""
    ):
        url = urlsplit(base_url)
        self.sock = socket.socket()
        if rcvbuf:  # before connecting, so that the window the server sees is small too
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((url.hostname, url.port))
        extensions = [f"Sec-WebSocket-Extensions: {deflate}"] if deflate else []
        self.sock.sendall(
            upgrade_request(url.netloc, path, [f"Origin: {base_url}", *headers, *extensions])
        )
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self._read()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head
        found = re.search(rb"(?im)^Sec-WebSocket-Extensions: *(.*?)\r?$", head)
        self.extensions = found[1].decode() if found else ""
        bits = re.search(r"server_max_window_bits=(\d+)", self.extensions)
        self.inflate = zlib.decompressobj(-int(bits[1]) if bits else -15)
        self.compressed = 0  # frames the server sent compressed
        self.wire = 0  # bytes of the frames read, as sent

    def _read(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("closed by the server")
        self.buf += chunk

    def _need(self, n: int):
        while len(self.buf) < n:
            self._read()

    def frame(self) -> tuple[int, bytes]:
        """The next frame's opcode and payload."""
        self._need(2)
        length, start = self.buf[1] & 0x7F, 2
        if length == 126:
            self._need(4)
            length, start = struct.unpack("!H", self.buf[2:4])[0], 4
        elif length == 127:
            self._need(10)
            length, start = struct.unpack("!Q", self.buf[2:10])[0], 10
        self._need(start + length)
        opcode, payload = self.buf[0] & 0x0F, self.buf[start : start + length]
        self.wire += start + length
        if self.buf[0] & 0x40:  # RSV1: compressed (RFC 7692 7.2.2)
            self.compressed += 1
            payload = self.inflate.decompress(payload + b"\x00\x00\xff\xff")
        self.buf = self.buf[start + length :]
        return opcode, payload

    def text(self) -> str:
        """The next text frame (pings are skipped; a close frame raises)."""
        while True:
            opcode, payload = self.frame()
            if opcode == TEXT:
                return payload.decode()
            if opcode == CLOSE:
                raise ConnectionError(f"closed with {struct.unpack('!H', payload[:2])[0]}")

    def send(self, payload: bytes, compressed=False):
        """One masked text frame, deflated (RSV1) if `compressed`."""
        first = 0x81
        if compressed:
            deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
            payload = (deflate.compress(payload) + deflate.flush(zlib.Z_SYNC_FLUSH))[:-4]
            first |= 0x40
        mask = os.urandom(4)
        n = len(payload)
        length = struct.pack("!B", 0x80 | n) if n < 126 else struct.pack("!BH", 0xFE, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(struct.pack("!B", first) + length + mask + masked)

    def close(self):
        self.sock.close()


class Reading(threading.Thread):
    """Reads a socket's text frames as a browser would, until stopped: (time, text)."""

    def __init__(self, ws: RawSocket):
        super().__init__(daemon=True)
        self.ws, self.frames, self.running = ws, [], True
        self.start()

    def run(self):
        with contextlib.suppress(OSError):  # the socket closed: its frames are what it got
            while self.running:
                self.frames.append((time.monotonic(), self.ws.text()))

    def stop(self):
        self.running = False
        self.join(5)
        return self.frames

"""A websocket client as lean as a measuring instrument should be, for hundreds of browsers in
one process on the machine that serves them.

It offers permessage-deflate as a browser does, and asks the server to keep no context
between its messages (`server_no_context_takeover`, RFC 7692 7.1.1.1). Then a message can be
inflated on its own, and a client process that is sent the same compressed bytes on all
of its sockets inflates and parses them once (bench/clients.py), as each browser on a
machine of its own would. aiohttp inflated every message for every socket: at 500
sockets, most of the client processes' time, on the two cores the server also runs on.

Server frames are unmasked (RFC 6455 5.1); pings are answered; fragments are joined.
"""

import asyncio
import os
import re
import struct
import zlib
from urllib.parse import urlsplit

from dashboard.testing.raw_socket import upgrade_request

OFFER = "permessage-deflate; server_no_context_takeover; client_max_window_bits"
TEXT, BINARY, CLOSE, PING, PONG = 1, 2, 8, 9, 10


def inflate(payload: bytes) -> bytes:
    """A message deflated with no context before it (RFC 7692 7.2.2)."""
    return zlib.decompressobj(-15).decompress(payload + b"\x00\x00\xff\xff")


class Refused(Exception):
    pass


class Socket(asyncio.Protocol):
    """One websocket: `on_message(payload, compressed)` for each text message, as it
    arrives; `closed` resolves to why it ended: the close code, or what went wrong."""

    def __init__(self, on_message):
        self.on_message = on_message
        loop = asyncio.get_running_loop()
        self.opened, self.closed = loop.create_future(), loop.create_future()
        self.buf = bytearray()
        self.parts: list[bytes] = []  # a fragmented message's frames so far
        self.opcode, self.compressed = TEXT, False  # the message's, from its first frame
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data: bytes):
        self.buf += data
        if not self.opened.done():
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buf[:end]).decode("latin-1")
            del self.buf[: end + 4]
            if not head.startswith("HTTP/1.1 101"):
                self.opened.set_exception(Refused(head.split("\r\n", 1)[0]))
                self.transport.close()
                return
            found = re.search(r"(?im)^Sec-WebSocket-Extensions:(.*)$", head)
            extensions = found[1] if found else ""
            if (
                "permessage-deflate" in extensions
                and "server_no_context_takeover" not in extensions
            ):
                self.opened.set_exception(Refused(f"the server keeps context: {extensions}"))
                self.transport.close()
                return
            self.opened.set_result(None)
        try:
            self.frames()
        except Exception as e:  # a message that could not be read ends this client, named
            self.finish(f"{type(e).__name__}: {e}")
            self.transport.close()

    def frames(self):
        buf = self.buf
        while len(buf) >= 2:
            first, length, start = buf[0], buf[1] & 0x7F, 2
            if length == 126:
                if len(buf) < 4:
                    return
                length, start = struct.unpack_from("!H", buf, 2)[0], 4
            elif length == 127:
                if len(buf) < 10:
                    return
                length, start = struct.unpack_from("!Q", buf, 2)[0], 10
            if len(buf) < start + length:
                return
            payload = bytes(buf[start : start + length])
            del buf[: start + length]
            opcode = first & 0x0F
            if opcode in (TEXT, BINARY):
                self.opcode, self.compressed = opcode, bool(first & 0x40)
            if opcode in (TEXT, BINARY, 0):
                self.parts.append(payload)
                if first & 0x80:  # the message's last frame
                    message = b"".join(self.parts) if len(self.parts) > 1 else payload
                    self.parts = []
                    if self.opcode == TEXT:
                        self.on_message(message, self.compressed)
            elif opcode == PING:
                self.send(PONG, payload)
            elif opcode == CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                self.send(CLOSE, payload[:2])  # the closing handshake's answer
                self.finish(code)
                self.transport.close()
                return

    def send(self, opcode: int, payload: bytes):
        """A masked control frame (a client's frames are masked, RFC 6455 5.3)."""
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.transport.write(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked)

    def finish(self, code):
        if not self.closed.done():
            self.closed.set_result(code)

    def connection_lost(self, exc):
        if not self.opened.done():
            self.opened.set_exception(Refused(f"connection lost: {exc}"))
        self.finish(None)


async def connect(url: str, headers: dict, on_message, timeout=30.0) -> Socket:
    """Open a websocket at `url` (ws://host:port/path) with these request headers."""
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()
    _, sock = await loop.create_connection(lambda: Socket(on_message), parts.hostname, parts.port)
    offer = f"Sec-WebSocket-Extensions: {OFFER}"
    extra = [offer, *(f"{k}: {v}" for k, v in headers.items())]
    path = f"{parts.path or '/'}?{parts.query}" if parts.query else parts.path
    sock.transport.write(upgrade_request(parts.netloc, path, extra))
    try:
        await asyncio.wait_for(asyncio.shield(sock.opened), timeout)
    except BaseException:
        sock.transport.close()
        raise
    return sock

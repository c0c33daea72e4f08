"""The server side of the fan-out: this process's open websockets per group, and a push
framed once and written to each of them.

Daphne's own path costs about 90 µs per socket and push (Channels' send, Daphne's
`handle_reply`, autobahn's encode, asserts and framing with a copy of the payload), and as
much again when Twisted writes the frame in the next reactor turn (two `epoll_ctl` calls
to register and unregister the writer): docs/performance.md. Here a push is framed once,
and compressed once for the sockets that negotiated permessage-deflate (frames.py: no
context is kept between messages, so the same bytes suit them all). Where nothing is
buffered for a socket, the frame is sent at once with one `send` call; where something is
buffered, it is appended behind it, so frames never reorder. A socket over TLS, or with
autobahn's own send queue in use, takes autobahn's path.

Versioned groups (the live pushes) keep the per-socket version check: a socket that missed
a push is not sent the next one; it is asked for its snapshot instead (a `RESYNC` message
on its ASGI receive queue; the consumer sends the whole view through the normal path and
joins again with that view's version). The hub keeps each versioned group's last frames
(`History`): a socket that joins with an older version than the group's last push (pushes
went out between its consumer reading the snapshot and joining) is written the frames it
missed, the same bytes the others got, and asked for its snapshot only when the gap goes
back further than they do.

Backpressure: a socket with more than `cap` bytes buffered in the process (its kernel send
buffer is held to `SEND_BUFFER`) is skipped (marked behind)
instead of growing the process without bound (django/daphne#170); once drained it is
asked for its snapshot; one still not drained `close_after_s` after it went over the cap is
closed with 1012, which htmx's websocket extension retries.
"""

import contextlib
import logging
import math
import socket
import time
from collections import deque

from autobahn.websocket.protocol import WebSocketProtocol
from twisted.internet import tcp

from dashboard.shared import metrics
from dashboard.shared.close_codes import CLOSE_RESTARTING

from .frames import frame

log = logging.getLogger("dashboard.live.hub")

EXTENSION = "dashboard.fanout"
JOIN = "dashboard.fanout.join"
LEAVE = "dashboard.fanout.leave"
RESYNC = "dashboard.fanout.resync"
SEND = "dashboard.fanout.send"  # one socket's frames, framed for several (its whole view)
OPEN = WebSocketProtocol.STATE_OPEN
# The kernel's send buffer per socket. Linux grows it up to tcp_wmem's maximum (4 MiB here)
# for a client that stops reading: that much kernel memory per slow socket, and seconds of
# stale pushes queued before the cap below sees anything. At 256 KiB a socket still takes
# 2.5 MB/s at 100 ms of round trip, some fifteen times what the busiest floor sends.
SEND_BUFFER = 256 * 1024
# The frames kept per versioned group for sockets that join late: at most this many pushes
# and this many bytes of payload (a second or more of a busy floor's pushes, a few of a
# burst's; one whole view is 600 KB at 1,000 agents).
HISTORY_FRAMES = 64
HISTORY_BYTES = 512 * 1024


def require(obj, *names: str):
    """Fail loudly, naming it, when an internal attribute a socket's fast path uses is gone
    (server.check_internals checks the class-level ones at start)."""
    for name in names:
        if not hasattr(obj, name):
            kind = type(obj)
            raise RuntimeError(
                f"{kind.__module__}.{kind.__qualname__}.{name} is gone: the dashboard's fan-out "
                "relies on it; run the versions pyproject.toml allows"
            )
    return obj


class Frames:
    """One push's bytes: framed once, and compressed once for each window size in use (a
    browser leaves the server's at 15 bits; a client may ask for less)."""

    __slots__ = ("payload", "framed")

    def __init__(self, payload: bytes):
        self.payload = payload
        self.framed: dict[int | None, bytes] = {}  # window bits (None: not compressed) -> frame

    def of(self, window_bits: int | None) -> bytes:
        data = self.framed.get(window_bits)
        if data is None:
            data = self.framed[window_bits] = frame(self.payload, window_bits)
        return data


class History:
    """A versioned group's last pushes, in order: (version, prev, frames or None when the
    push wrote that audience nothing)."""

    __slots__ = ("pushes", "size")

    def __init__(self):
        self.pushes: deque[tuple[int, int | None, Frames | None]] = deque()
        self.size = 0

    def add(self, version: int, prev: int | None, frames: Frames | None):
        if self.pushes and prev != self.pushes[-1][0]:
            self.clear()  # a gap (the relay was away): what is kept no longer chains
        self.pushes.append((version, prev, frames))
        self.size += len(frames.payload) if frames else 0
        while len(self.pushes) > HISTORY_FRAMES or self.size > HISTORY_BYTES:
            _, _, old = self.pushes.popleft()
            self.size -= len(old.payload) if old else 0

    def clear(self):
        self.pushes.clear()
        self.size = 0

    def last(self) -> int | None:
        return self.pushes[-1][0] if self.pushes else None

    def since(self, version: int) -> list[tuple[int, Frames | None]] | None:
        """The pushes after `version`, oldest first; None when they go back further than
        what is kept."""
        missed = [(v, f) for v, prev, f in self.pushes if v > version]
        if missed and self.pushes[len(self.pushes) - len(missed)][1] != version:
            return None
        return missed


class Socket:
    """One open websocket as the hub sees it."""

    __slots__ = (
        "protocol",
        "transport",
        "direct",
        "window_bits",
        "groups",
        "held",
        "behind_since",
    )

    def __init__(self, protocol):
        require(protocol, "application_queue", "transport", "send_queue", "_perMessageCompress")
        self.protocol = protocol
        self.transport = protocol.transport
        deflate = protocol._perMessageCompress  # permessage-deflate, if negotiated
        self.window_bits = (
            require(deflate, "server_max_window_bits").server_max_window_bits if deflate else None
        )
        # Twisted's plain TCP transport, whose buffers can be read and bypassed when empty
        self.direct = isinstance(self.transport, tcp.Connection) and not (
            require(self.transport, "TLS").TLS
        )
        if self.direct:
            require(self.transport, "_tempDataLen", "disconnecting")
            with contextlib.suppress(OSError):
                self.transport.getHandle().setsockopt(
                    socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER
                )
        self.groups: set[str] = set()
        self.held = False  # skipped: behind, or waiting for the snapshot a resync asked for
        self.behind_since: float | None = None

    def buffered(self) -> int:
        """Bytes Twisted holds for this socket, not yet taken by the kernel."""
        if not self.direct:
            return 0
        t = self.transport
        return len(t.dataBuffer) - t.offset + t._tempDataLen

    def send(self, frames: Frames, cap: int) -> bool:
        """Write a push's frame; False, writing nothing, when over `cap` is buffered."""
        protocol = self.protocol
        if not self.direct or protocol.send_queue:
            if protocol.state == OPEN:
                protocol.sendData(frames.of(self.window_bits))  # autobahn's path, in its order
            return True
        t = self.transport
        buffered = len(t.dataBuffer) - t.offset + t._tempDataLen
        if buffered > cap:
            return False
        if protocol.state != OPEN:
            return True  # closing: it takes nothing more
        data = frames.of(self.window_bits)
        if not buffered and not t.disconnecting:
            sent = t.writeSomeData(data)
            if sent == len(data):
                return True
            if isinstance(sent, int):  # else the connection is lost: Twisted's write finds out
                data = data[sent:]
        t.write(data)  # behind what is buffered: Twisted sends it when the socket can take it
        return True


class Hub:
    def __init__(self, *, cap: int, close_after_s: float):
        self.cap, self.close_after_s = cap, close_after_s
        self.sockets: dict = {}  # protocol -> Socket
        self.groups: dict[str, dict[Socket, int | None]] = {}  # group -> socket -> version
        self.behind: set[Socket] = set()
        self.history: dict[str, History] = {}  # versioned group -> its last pushes

    # ---- Membership, from the sockets' consumers (join and leave messages) -----------------
    def join(self, protocol, group: str, version: int | None):
        """From now on `protocol` gets `group`'s broadcasts; `version` is the version of the
        view it was last sent (None: the group is not versioned)."""
        if protocol.state != OPEN:
            return
        sock = self.sockets.get(protocol)
        if sock is None:
            sock = self.sockets[protocol] = Socket(protocol)
        if sock.behind_since is None:
            sock.held = False  # a join follows the snapshot a resync asked for
        sock.groups.add(group)
        self.groups.setdefault(group, {})[sock] = version
        history = self.history.get(group)
        if version is not None and history and version < history.last():
            self.catch_up(sock, group, version, history)

    def write(self, protocol, frames: Frames):
        """Write one socket frames that other sockets may be sent too (a whole view read
        once for them: whole.py), compressed once for them all; after what it was sent."""
        if protocol.state != OPEN:
            return
        sock = self.sockets.get(protocol)
        if sock is None:
            sock = self.sockets[protocol] = Socket(protocol)
        try:
            sock.send(frames, math.inf)  # its whole view: never skipped for backpressure
        except Exception:  # one socket's failure is not the others'
            log.exception("writing a socket its whole view failed; closing it")
            self.close(sock)

    def catch_up(self, sock: Socket, group: str, version: int, history: History):
        """Write a joining socket the pushes it missed since `version` (its snapshot's), or
        ask for its snapshot again when they go back further than the history."""
        missed = history.since(version)
        if missed is None:
            self.resync(sock)
            return
        cap = self.cap + sock.buffered()  # the snapshot it was just sent does not count
        try:
            for pushed, frames in missed:
                if frames and not sock.send(frames, cap):
                    self.fell_behind(sock)
                    return
                self.groups[group][sock] = pushed
        except Exception:  # one socket's failure is not the others'
            log.exception("catching a socket up failed; closing it")
            self.close(sock)

    def leave(self, protocol, group: str):
        sock = self.sockets.get(protocol)
        if sock:
            sock.groups.discard(group)
            self._forget(sock, group)

    def drop(self, protocol):
        """The socket is gone."""
        sock = self.sockets.pop(protocol, None)
        if sock:
            self.behind.discard(sock)
            for group in sock.groups:
                self._forget(sock, group)

    def _forget(self, sock: Socket, group: str):
        members = self.groups.get(group)
        if members is not None:
            members.pop(sock, None)
            if not members:
                del self.groups[group]
                self.history.pop(group, None)

    # ---- Broadcasting ----------------------------------------------------------------------
    def broadcast(self, group: str, text: str, version: int | None = None, prev=None):
        """Frame `text` once and write it to every open socket of `group` that is due it.
        An empty `text` (nothing the audience shows changed) writes nothing but moves the
        sockets that are due it on to `version`. A versioned push is kept for sockets that
        join late, from before their join arrives (their relay sends them already)."""
        frames = Frames(text.encode()) if text else None
        if version is not None:
            self.history.setdefault(group, History()).add(version, prev, frames)
        members = self.groups.get(group)
        if not members:
            return
        cap = self.cap
        for sock, have in list(members.items()):
            if sock.held:
                continue
            if version is not None:
                if have is not None and version <= have:
                    continue  # already in the view this socket has
                if have is None or prev != have:
                    self.resync(sock)  # it missed a push: the whole view, not this change
                    continue
            try:
                if not text:
                    members[sock] = version
                elif not sock.send(frames, cap):
                    self.fell_behind(sock)
                elif version is not None:
                    members[sock] = version
            except Exception:  # one socket's failure is not the others'
                log.exception("a push to a socket failed; closing it")
                self.close(sock)

    def resync(self, sock: Socket):
        """Ask the socket's consumer for its snapshot; until it joins again, skip it."""
        sock.held = True
        sock.protocol.application_queue.put_nowait({"type": RESYNC})

    # ---- Backpressure ----------------------------------------------------------------------
    def fell_behind(self, sock: Socket):
        sock.held, sock.behind_since = True, time.monotonic()
        self.behind.add(sock)
        log.info("a socket has over %d bytes unsent; skipping its pushes until it drains", self.cap)

    def check_behind(self):
        """Every second: a drained socket gets its snapshot; one that stayed behind too
        long is closed."""
        now = time.monotonic()
        for sock in list(self.behind):
            if sock.buffered() == 0:
                sock.behind_since = None
                self.behind.discard(sock)
                self.resync(sock)
            elif now - sock.behind_since >= self.close_after_s:
                log.warning(
                    "closing a socket that did not drain in %g s (1012: it will reconnect)",
                    self.close_after_s,
                )
                self.behind.discard(sock)
                metrics.SOCKETS_BEHIND_CLOSED.inc()
                self.close(sock)

    def close_all(self):
        """The worker is stopping: close every socket with 1012, so that browsers reconnect
        at once (to a worker that is up) instead of seeing the connection drop (1006)."""
        for sock in list(self.sockets.values()):
            self.close(sock)

    def close(self, sock: Socket):
        """Close with 1012 (htmx reconnects and gets the whole view). autobahn's `sendClose`
        refuses the codes a server may send (1012 included); its close frame does not."""
        self.drop(sock.protocol)
        if sock.protocol.state == OPEN:
            sock.protocol.sendCloseFrame(code=CLOSE_RESTARTING)

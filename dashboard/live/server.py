"""Daphne's server, with the dashboard's fan-out, bounded request bodies and server close
codes. `manage.py serve` runs it; production workers run it through `dashboard.live.web`.

- **Fan-out.** Websocket scopes advertise the `dashboard.fanout` ASGI extension, whose
  `broadcast(group, text, version, prev)` hands a push to the hub (hub.py): framed once,
  written to every open socket of the group. Consumers join and leave groups with
  `dashboard.fanout.join` / `.leave` messages on their ASGI `send`, after what they have
  sent already, so no push overtakes a snapshot; a `dashboard.fanout.send` message writes
  the socket frames shared with others (its whole view, compressed once: whole.py).
  Without the extension (other servers, Channels' test communicator) the consumers use the
  process relay alone (fanout.py).
- **Compression.** A client's permessage-deflate offer (every browser makes one) is accepted
  with no context kept between messages (frames.py), so the fan-out compresses a push once
  for all its sockets, and Daphne's own sends are compressed the same way, each on its own
  (autobahn would keep a 256 KiB compressor per socket between them). What a client sends
  is inflated to at most `REQUEST_BODY_MAX_BYTES`; a message over it fails the socket (1009).
  `WEBSOCKET_DEFLATE=false` declines every offer.
- **Request bodies.** Twisted reads a whole body before Daphne hands the request on, and
  Daphne then queues all of it at once: a 200 MiB POST grew the process by 200 MiB before
  Django's 413. Here a body declared larger than `REQUEST_BODY_MAX_BYTES` is refused with
  413 before any of it is read, one that grows past it (chunked) when it does, and one not
  complete within `REQUEST_BODY_TIMEOUT_S` of its headers gets 408. Websocket handshakes
  have no body: no deadline ever applies to an open websocket.
- **Close codes.** autobahn's `sendClose` refuses 1001, 1011, 1012 and 1013, which a server
  may send (RFC 6455 7.4, IANA); Daphne uses it, so a consumer's `close(1012)` raised.
  Those codes go out through autobahn's close frame instead, and a stopping server closes
  its sockets with 1012 (htmx reconnects after it) instead of dropping them.

It relies on Daphne's, autobahn's and Twisted's internals, checked at start by
`check_internals` (and in hub.py for each socket's); pyproject.toml bounds the versions.
"""

from daphne.server import Server  # installs the asyncio Twisted reactor: import it first  # isort: skip

import gc
import inspect
import logging

from autobahn.websocket.compress_deflate import (
    PerMessageDeflate,
    PerMessageDeflateOffer,
    PerMessageDeflateOfferAccept,
)
from autobahn.websocket.protocol import WebSocketProtocol
from daphne.http_protocol import HTTPFactory, WebRequest
from daphne.ws_protocol import WebSocketProtocol as DaphneWebSocketProtocol
from django.conf import settings
from twisted.internet import abstract, reactor, task, tcp
from twisted.web import http

from .access import AccessLog
from .frames import frame
from .hub import EXTENSION, JOIN, LEAVE, SEND, Hub, require

log = logging.getLogger("dashboard.live.server")
SERVER_CLOSE_CODES = {1001, 1011, 1012, 1013}
LINGER_S = 2  # after refusing a body: read and drop what the client still sends, then close

INTERNALS = [  # (the class that defines it, attribute); what only instances have: hub.require
    (Server, "create_application"),
    (Server, "handle_reply"),
    (Server, "protocol_disconnected"),
    (Server, "run"),
    (HTTPFactory, "buildProtocol"),
    (WebRequest, "connectionLost"),
    (http.Request, "gotLength"),
    (http.Request, "handleContentChunk"),
    (http.Request, "requestReceived"),
    (http.HTTPChannel, "loseConnection"),
    (WebSocketProtocol, "sendMessage"),
    (WebSocketProtocol, "sendData"),
    (WebSocketProtocol, "sendCloseFrame"),
    (WebSocketProtocol, "STATE_OPEN"),
    (abstract.FileDescriptor, "dataBuffer"),
    (abstract.FileDescriptor, "offset"),
    (abstract.FileDescriptor, "write"),
    (abstract.FileDescriptor, "loseWriteConnection"),
    (tcp.Connection, "writeSomeData"),
    (tcp.Connection, "getHandle"),
]


def check_internals():
    """Fail loudly, naming it, when a library internal the server relies on is gone (or has
    moved to another class, which may mean it changed)."""
    for owner, name in INTERNALS:
        if name not in vars(owner):
            raise RuntimeError(
                f"{owner.__module__}.{owner.__qualname__}.{name} is gone: the dashboard's "
                "server relies on it; run the versions pyproject.toml allows"
            )
    # Compression: the accept's options, the socket's window, and inflating bounded per call
    deflate = PerMessageDeflate.create_from_offer_accept(
        True, accept_deflate([PerMessageDeflateOffer()])
    )
    require(deflate, "server_max_window_bits")
    if (
        "max_output_len"
        not in inspect.signature(PerMessageDeflate.decompress_message_data).parameters
    ):
        raise RuntimeError(
            "autobahn's PerMessageDeflate.decompress_message_data does not bound what a frame "
            "inflates to: run the versions pyproject.toml allows"
        )


class BoundedRequest(WebRequest):
    """Daphne's request with its body bounded in size and time (see the module's doc)."""

    max_body = 1024 * 1024
    body_timeout_s = 30.0
    _read = 0
    _deadline = None
    _refused = False

    def gotLength(self, length):
        if length is not None and length > self.max_body:
            self.refuse(413, b"Content Too Large", "request body over the limit")
            return
        super().gotLength(length)
        if length != 0:  # None: chunked. A websocket handshake has no body, so no deadline.
            self._deadline = reactor.callLater(self.body_timeout_s, self.too_slow)

    def handleContentChunk(self, data):
        if self._refused:
            return  # dropped while the refusal lingers
        self._read += len(data)
        if self._read > self.max_body:
            self.refuse(413, b"Content Too Large", "request body over the limit")
            return
        super().handleContentChunk(data)

    def requestReceived(self, command, path, version):
        self._stop_deadline()
        if not self._refused:
            super().requestReceived(command, path, version)

    def connectionLost(self, reason):
        self._stop_deadline()
        super().connectionLost(reason)

    def too_slow(self):
        self._deadline = None
        self.refuse(408, b"Request Timeout", "request body not received in time")

    def _stop_deadline(self):
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None

    def refuse(self, code: int, phrase: bytes, text: str):
        """Answer at once, without the application. Then drop what the client still sends
        for a moment before closing: closing with unread data sends a reset, which may reach
        the client before the answer does."""
        self._refused = True
        self._stop_deadline()
        self.requestHeaders.removeHeader(b"Expect")  # no "100 Continue" after the answer
        channel, body = self.channel, text.encode()
        channel.transport.write(
            b"HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (code, phrase, len(body), body)
        )
        channel.transport.loseWriteConnection()
        reactor.callLater(LINGER_S, channel.loseConnection)


class BoundedHTTPFactory(HTTPFactory):
    def buildProtocol(self, addr):
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = BoundedRequest
        return protocol


class CompressingWebSocket(DaphneWebSocketProtocol):
    """Daphne's websocket, whose messages, where permessage-deflate was negotiated, are
    compressed each on its own like the fan-out's (frames.py). A message to a socket that
    is closing (the browser left while its consumer was sending) is dropped: autobahn
    would raise, and Daphne log the consumer's traceback, for a frame no one would read."""

    def sendMessage(self, payload, isBinary=False, fragmentSize=None, sync=False, **kwargs):
        if self.state != self.STATE_OPEN:
            return
        deflate = self._perMessageCompress
        if deflate is None or fragmentSize or sync or kwargs:
            return super().sendMessage(payload, isBinary, fragmentSize, sync, **kwargs)
        self.sendData(frame(payload, deflate.server_max_window_bits, isBinary))


def accept_deflate(offers):
    """permessage-deflate, with no context kept between the server's messages (the offer's
    window sizes stand); what the client sends inflated to a bounded size."""
    for offer in offers:
        if isinstance(offer, PerMessageDeflateOffer):
            return PerMessageDeflateOfferAccept(
                offer, no_context_takeover=True, max_message_size=BoundedRequest.max_body
            )
    return None


class FanoutServer(Server):
    def __init__(self, application, **kwargs):
        super().__init__(application, **kwargs)
        check_internals()
        if self.action_logger is not None:  # Daphne's command line: its access log
            self.action_logger = AccessLog()
        self.hub = Hub(
            cap=settings.FANOUT_BUFFER_CAP_BYTES,
            close_after_s=settings.FANOUT_BEHIND_CLOSE_S,
        )
        BoundedRequest.max_body = settings.REQUEST_BODY_MAX_BYTES
        BoundedRequest.body_timeout_s = settings.REQUEST_BODY_TIMEOUT_S

    @property
    def http_factory(self):
        return self._http_factory

    @http_factory.setter
    def http_factory(self, factory):
        """Daphne's `run` builds its HTTPFactory here; ours bounds request bodies."""
        self._http_factory = BoundedHTTPFactory(self)

    @property
    def ws_factory(self):
        return self._ws_factory

    @ws_factory.setter
    def ws_factory(self, factory):
        """Daphne's `run` builds its websocket factory here; ours compresses."""
        factory.protocol = CompressingWebSocket
        if settings.WEBSOCKET_DEFLATE:
            factory.setProtocolOptions(perMessageCompressionAccept=accept_deflate)
        self._ws_factory = factory

    def run(self):
        # What is loaded by now (Django, the app) lives as long as the process: frozen out of
        # the collector's sight. A full collection, every ten seconds or so on a busy floor,
        # walked 200,000 objects in 70 ms, a pause every push waited for; now about 100,000
        # in 30 ms (docs/performance.md, the floor's max latency).
        gc.freeze()
        reactor.callLater(1, self.check_behind)
        reactor.addSystemEventTrigger("before", "shutdown", self.close_all)
        super().run()

    def close_all(self):
        """Close the sockets with 1012 before stopping; a moment for the frames to leave."""
        self.hub.close_all()
        return task.deferLater(reactor, 0.2, lambda: None)

    def check_behind(self):
        try:
            self.hub.check_behind()
        except Exception:
            log.exception("checking the sockets that fell behind failed")
        reactor.callLater(1, self.check_behind)

    def create_application(self, protocol, scope):
        if scope["type"] == "websocket":
            extensions = scope.get("extensions") or {}
            scope["extensions"] = {**extensions, EXTENSION: {"broadcast": self.hub.broadcast}}
        return super().create_application(protocol, scope)

    async def handle_reply(self, protocol, message):
        kind = message.get("type")
        if kind == JOIN:
            if protocol in self.connections:
                self.hub.join(protocol, message["group"], message.get("version"))
        elif kind == LEAVE:
            self.hub.leave(protocol, message["group"])
        elif kind == SEND:
            if protocol in self.connections:
                self.hub.write(protocol, message["frames"])
        elif (
            kind == "websocket.close"
            and message.get("code") in SERVER_CLOSE_CODES
            and getattr(protocol, "state", None) == WebSocketProtocol.STATE_OPEN
        ):
            self.hub.drop(protocol)
            protocol.sendCloseFrame(code=message["code"])
        else:
            await super().handle_reply(protocol, message)

    def protocol_disconnected(self, protocol):
        super().protocol_disconnected(protocol)
        self.hub.drop(protocol)

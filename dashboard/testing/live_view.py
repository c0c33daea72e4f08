"""The dashboard's live view read the way a browser gets it: a signed-in websocket to the
real server, whose first message is the whole view, parsed into what each tile says.
`LiveSocket` reads it from a test's thread; `LiveBrowser` from a test's event loop, many at
once."""

import asyncio
import html
import re
import time
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from html.parser import HTMLParser

import websockets
from websockets.sync.client import connect

from .upstream import truth


@dataclass
class View:
    agents: dict = field(default_factory=dict)  # agent id -> data-state of its tile
    calls: set = field(default_factory=set)  # ids of the calls listed
    upstream: list = field(default_factory=list)  # (data-state, reason) of each #upstream seen

    def as_truth(self):
        return self.agents, self.calls


class ViewParser(HTMLParser):
    """Collects tiles, call rows and the upstream status from out-of-band fragments."""

    def __init__(self, view: View):
        super().__init__(convert_charrefs=True)
        self.view = view
        self.in_upstream = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        element_id = a.get("id") or ""
        if element_id.startswith("agent-") and "agent" in (a.get("class") or "").split():
            self.view.agents[element_id[len("agent-") :]] = a.get("data-state")
        elif tag == "li" and element_id.startswith("call-"):
            if a.get("hx-swap-oob") == "delete":
                self.view.calls.discard(element_id[len("call-") :])
            else:
                self.view.calls.add(element_id[len("call-") :])
        elif element_id == "upstream":
            self.in_upstream = [a.get("data-state"), ""]

    def handle_data(self, data):
        if self.in_upstream is not None:
            self.in_upstream[1] += data

    def handle_endtag(self, tag):
        if self.in_upstream is not None and tag == "div":
            self.view.upstream.append(tuple(self.in_upstream))
            self.in_upstream = None


def parse(messages, view=None) -> View:
    view = view or View()
    for message in messages:
        parser = ViewParser(view)
        parser.feed(message)
        parser.close()
    return view


class LiveSocket:
    """A browser's socket to /ws/live/ on a running dashboard, signed in with `client`'s
    session (an httpx client signed in through the real form)."""

    def __init__(self, server, client, path="/ws/live/"):
        self._stack = ExitStack()
        self.ws = self._stack.enter_context(
            connect(
                server.url.replace("http", "ws", 1) + path,
                origin=server.url,
                additional_headers={"Cookie": f"sessionid={client.cookies['sessionid']}"},
                open_timeout=10,
                max_size=None,
                max_queue=None,  # keep reading while the test is busy elsewhere
            )
        )
        self.messages: list[str] = []

    def receive(self, timeout=10.0) -> str:
        message = self.ws.recv(timeout=timeout)
        self.messages.append(message)
        return message

    def drain(self, quiet=1.0) -> list[str]:
        """Every message so far: those received, and those that come until none has for
        `quiet` s."""
        with suppress(TimeoutError):
            while True:
                self.receive(timeout=quiet)
        return self.messages

    def read_until(self, check, timeout=30.0) -> View:
        """Read pushes until the view so far satisfies `check`."""
        deadline = time.monotonic() + timeout
        while True:
            view = parse(self.messages)
            if check(view):
                return view
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the live view never satisfied the check: {view.upstream}")
            with suppress(TimeoutError):
                self.receive(timeout=left)

    def close(self):
        self._stack.close()


def current_view(server, client) -> View:
    """The whole view a browser connecting now is sent first."""
    socket = LiveSocket(server, client)
    try:
        return parse([socket.receive()])
    finally:
        socket.close()


def matches_truth(sim, server, client, timeout=30.0) -> View:
    """With the simulated floor paused, wait until a freshly connected browser's view
    equals the simulator's truth (agent states and active calls over its REST API)."""
    sim.control("pause")
    deadline = time.monotonic() + timeout
    try:
        while True:
            expected = truth(sim)
            view = current_view(server, client)
            if view.as_truth() == expected and view.upstream[-1][0] == "connected":
                return view
            if time.monotonic() > deadline:
                assert view.as_truth() == expected
                assert view.upstream[-1][0] == "connected"
            time.sleep(0.5)
    finally:
        sim.control("resume")


class LiveBrowser:
    """A signed-in browser's live socket on a test's event loop: keeps the agents' states
    as the page would (`servers.session_cookie` signs it in)."""

    def __init__(self, url):
        self.url, self.view, self.frames = url, View(), 0

    @property
    def states(self) -> dict:
        return self.view.agents

    async def open(self, cookie):
        ws_url = self.url.replace("http://", "ws://") + "/ws/live/"
        self.socket = await websockets.connect(
            ws_url, additional_headers={"Cookie": cookie, "Origin": self.url}, max_size=None
        )
        self.reader = asyncio.ensure_future(self._read())
        return self

    async def _read(self):
        async for frame in self.socket:
            self.frames += 1
            parse([frame], self.view)

    async def close(self):
        self.reader.cancel()
        await self.socket.close()


class ReconnectingBrowser(LiveBrowser):
    """A live page's socket that reconnects a second after it closes, as htmx's websocket
    extension does (its snapshot then replaces the view); `drops` counts the closes, which
    the page shows as "reconnecting"."""

    drops = 0

    async def open(self, cookie):
        self.cookie = cookie
        self.reader = asyncio.ensure_future(self._follow())
        return self

    async def _follow(self):
        ws_url = self.url.replace("http://", "ws://") + "/ws/live/"
        headers = {"Cookie": self.cookie, "Origin": self.url}
        while True:
            try:
                async with websockets.connect(ws_url, additional_headers=headers) as socket:
                    self.socket = socket
                    async for frame in socket:
                        self.frames += 1
                        parse([frame], self.view)
            except (OSError, websockets.WebSocketException):
                pass
            self.drops += 1
            await asyncio.sleep(1)

    async def close(self):
        self.reader.cancel()


KPI = re.compile(r'<button class="label"[^>]*>([^<]+)</button><div class="value">([^<]*)</div>')
AI_SHARE = re.compile(r"([\d.]+)% of today")


def kpi_figures(message: str) -> dict:
    """The KPI tiles' numbers in a push, by label ("Completed": "17"), and the header's AI
    share ("AI share": "23.5", or None when no call ended today)."""
    figures = {label: html.unescape(value) for label, value in KPI.findall(message)}
    share = AI_SHARE.search(message)
    figures["AI share"] = share and share.group(1)
    return figures


def current_kpis(server, client) -> dict:
    """The KPI tiles a browser connecting now is sent first."""
    socket = LiveSocket(server, client)
    try:
        return kpi_figures(socket.receive())
    finally:
        socket.close()

"""The whole live view as an audience's sockets are sent it, read, composed and framed once
per process, audience and version.

A socket is sent the whole view when it connects and again after it fell behind or missed a
push. Each read its own copy from the cache and joined it, and the server compressed it for
each: at 10,000 agents the whole floor's view is 6 MB, and the sockets that drained after
falling behind are resynced together (hub.py, once a second), as are browsers that
reconnect together. Here the sockets of one audience that ask at the same time share one
read, and a view already composed at the cache's current version is not composed again; the
frames are compressed once per window size (hub.py `Frames`), like a push's.
"""

import asyncio
import threading
from dataclasses import dataclass, field

from . import snapshot
from .handshake import in_thread
from .hub import Frames


@dataclass(eq=False)
class Whole:
    """An audience's whole view: the cache's entry it was read from (`head`: the version
    and the parts but the tiles), its text, and its frames."""

    head: tuple
    text: str
    frames: Frames = field(init=False)

    def __post_init__(self):
        self.frames = Frames(self.text.encode())


class Views:
    """This process's latest whole view per audience, and the reads under way."""

    def __init__(self):
        self.lock = threading.Lock()  # `last` is kept from the worker threads that read
        self.last: dict = {}  # audience -> its Whole at the newest version composed
        self.reading: dict = {}  # (event loop, audience, keys also read) -> its read

    async def read(self, audience, also: tuple[str, ...]) -> tuple[Whole | None, dict]:
        """The audience's whole view (None before the first push) and the cache entries
        `also`; one read for the sockets of an audience that ask together."""
        key = (asyncio.get_running_loop(), audience, also)
        future = self.reading.get(key)
        if future is None:
            future = self.reading[key] = asyncio.ensure_future(
                in_thread(self.compose)(audience, also)
            )
            future.add_done_callback(lambda done: self.reading.pop(key, None))
        return await asyncio.shield(future)

    def compose(self, audience, also: tuple[str, ...]) -> tuple[Whole | None, dict]:
        head, got = snapshot.read_head(*also)
        if head is None:
            return None, got
        with self.lock:
            kept = self.last.get(audience)
        # The same version and parts: a bridge that started again numbers from 1 once more.
        if kept is not None and kept.head == head:
            return kept, got
        tiles = "agents" in audience.parts
        _, parts = snapshot.with_tiles(head, audience.teams) if tiles else head
        whole = Whole(head, audience.compose(parts))
        with self.lock:
            self.last[audience] = whole
        return whole, got


VIEWS = Views()

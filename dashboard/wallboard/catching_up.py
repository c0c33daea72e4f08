"""A wallboard that cannot keep up is sent whole panels at the pace it paints them.

A TV's stick PC may paint far fewer changes than a busy floor pushes. Its page says so on
its socket (`{"behind": true}`, static/js/wallboard.js); the server then holds the live
pushes back from that socket and, instead, sends the link's panels as they are now (every
tile's newest state: all that was held, merged), each time the page says it painted the
last one (`{"painted": n}`), leaving the page as long again before the next. The page
shows that it is catching up and that nothing is lost.

After a while (at least REFRESHES, and HOLD_S from the first painted: what was already on
its way to the page when it asked comes first) the socket follows the pushes again from
the version of the last refresh (the fan-out writes those it missed, or the whole view): a
TV that keeps up stays there; one that does not says so again.
"""

import asyncio
import contextlib
import json
import logging
import time

from django.conf import settings
from django.template.loader import render_to_string

log = logging.getLogger(__name__)

HOLD_S = settings.WALLBOARD_CATCH_UP_HOLD_S  # whole refreshes this long at least
REFRESHES = 3  # and at least this many
MIN_GAP_S = 1.0  # between a refresh painted and the next
MAX_GAP_S = 10.0
PAINT_WAIT_S = 30.0  # a refresh not said painted by then: the next one goes anyway


def said(text: str | None) -> dict:
    """What the page said on its socket: {"behind": bool} or {"painted": int}; anything
    else (a browser sends what it likes) is {}."""
    try:
        message = json.loads(text or "")
    except ValueError:
        return {}
    if not isinstance(message, dict):
        return {}
    if isinstance(message.get("behind"), bool):
        return {"behind": message["behind"]}
    if isinstance(message.get("painted"), int) and not isinstance(message["painted"], bool):
        return {"painted": message["painted"]}
    return {}


def note(refresh: int, on: bool, every_s: float | None = None) -> str:
    """The screen's note, with the refresh it comes with: shown while refreshing."""
    every = None if every_s is None else max(1, round(every_s))
    return render_to_string(
        "wallboard/_catching_up.html", {"refresh": refresh, "on": on, "every_s": every}
    )


class Refresher:
    """One socket's whole-panel refreshes while its page is behind.

    `consumer` offers `stop_following()`, `refresh() -> str` (its panels now, as one
    frame, "" before the first push), `resume()` and `send(text_data=...)`."""

    def __init__(self, consumer):
        self.consumer = consumer
        self.task: asyncio.Task | None = None
        self.painted = asyncio.Event()
        self.count = 0  # refreshes sent

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def hear(self, message: dict):
        if message.get("behind") and not self.running:
            self.task = asyncio.ensure_future(self.run())
        elif message.get("painted") == self.count:
            self.painted.set()

    def stop(self):
        if self.task:
            self.task.cancel()

    async def run(self):
        consumer = self.consumer
        try:
            await consumer.stop_following()
            started = None  # when the first refresh was painted
            every = None
            while True:
                self.count += 1
                self.painted.clear()
                sent = time.monotonic()
                frame = await consumer.refresh()
                await consumer.send(text_data=frame + note(self.count, True, every))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.painted.wait(), PAINT_WAIT_S)
                now = time.monotonic()
                started = started or now
                took = now - sent
                gap = min(MAX_GAP_S, max(MIN_GAP_S, took))  # as long again as it took
                every = took + gap
                if self.count >= REFRESHES and now - started + gap >= HOLD_S:
                    break
                await asyncio.sleep(gap)
            await consumer.send(text_data=note(self.count, False))
            await consumer.resume()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a wallboard's whole-panel refreshes failed; following the pushes")
            await consumer.resume()

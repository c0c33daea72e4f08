"""What changed, worked out in the bridge: a task beside the live feed evaluates today
against its normal (panel.py) every `NORMAL_EVAL_S` and just after each 15-minute slot
ends, in a worker thread, and hands the result to `on_figures` (the live feed's
`set_figures`), which renders the "What changed" panel once when it differs and pushes it
to the live view and the wallboards that show it. Never per browser."""

import logging
import time
from datetime import UTC, datetime

from channels.db import database_sync_to_async
from django.conf import settings

from dashboard.live.state import SLOT_S
from dashboard.shared.aio import pause

from .panel import away_of, evaluate

log = logging.getLogger("dashboard.normal.watch")
AFTER_SLOT_S = 6.0  # past a slot's end: the recorder (every 5 s) has written its counts


def wait_s(now_ts: float, every_s: float) -> float:
    """Until the next evaluation: `every_s`, or sooner when a slot ends before that."""
    to_slot = SLOT_S - now_ts % SLOT_S + AFTER_SLOT_S
    if to_slot > SLOT_S:
        to_slot -= SLOT_S
    return min(every_s, to_slot)


class ChangeWatch:
    def __init__(
        self,
        state,
        on_figures,
        plans=dict,
        filling=lambda: None,
        filling_past=lambda: None,
        every_s: float | None = None,
    ):
        self.state = state  # the live state: who is paused or signed out now
        self.on_figures = on_figures
        self.plans = plans  # () -> each queue's name and goal (the inbound board's figures)
        self.filling = filling  # () -> today's fill progress in % (None: done), the feed's
        self.filling_past = filling_past  # () -> the past weeks' likewise (the normal's)
        self.every_s = every_s or settings.NORMAL_EVAL_S
        self.failing = False

    async def run(self, stop):
        while not stop.is_set():
            await self.evaluate()
            await pause(stop, wait_s(time.time(), self.every_s))

    async def evaluate(self):
        now = datetime.now(UTC)
        try:
            away = away_of(self.state, now)  # on the loop, where the state changes
            plans = dict(self.plans() or {})
            filling = self.filling(), self.filling_past()
            figure = await database_sync_to_async(evaluate, thread_sensitive=False)(
                now, away, plans, *filling
            )
        except Exception:
            if not self.failing:  # once until it works again
                log.exception("working out what changed failed; trying again shortly")
            self.failing = True
            return
        self.failing = False
        if [x is None for x in filling] != [self.filling() is None, self.filling_past() is None]:
            return  # a fill began or ended meanwhile: the evaluation that set off hands it
        self.on_figures({"what_changed": figure})

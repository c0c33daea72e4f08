"""The single-machine channel layer: channels' in-memory layer, with its sweep made cheap.

channels 4.3's `InMemoryChannelLayer` sweeps every channel and every group for expired
messages on each `receive` and `group_send`. Each browser's consumer receives every push,
so one push to N browsers costs N sweeps of N channels: O(N²) work on the event loop
(at 500 browsers it was most of the web process's time, docs/performance.md). Expiry is
measured in tens of seconds, so sweeping at most once a second changes nothing else.
"""

import time

from channels.layers import InMemoryChannelLayer

SWEEP_INTERVAL_S = 1.0


class SweepingInMemoryChannelLayer(InMemoryChannelLayer):
    _swept = 0.0

    def _clean_expired(self):
        now = time.monotonic()
        if now - self._swept >= SWEEP_INTERVAL_S:
            self._swept = now
            super()._clean_expired()

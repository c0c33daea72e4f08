"""The normal of one figure at one time of day: the median of the same weekday and
interval over recent weeks, and a band from their median absolute deviation (robust to one
odd day). With fewer than `MIN_WEEKS` samples there is no band: the page says so instead
of inventing one. The method is written down in docs/metrics.md."""

from dataclasses import dataclass, field
from datetime import date
from statistics import median

WEEKS = 4  # same weekdays looked back over
MIN_WEEKS = 3  # fewer samples than this: no normal yet
MAD_TO_SIGMA = 1.4826  # the MAD of normally spread values times this is their deviation
WIDTH = 2.0  # the band is the median plus or minus this many such deviations
NOISY = 0.5  # a band wider than this share of its median either side: too noisy to judge


@dataclass
class Normal:
    median: float | None
    low: float | None
    high: float | None
    days: list[date] = field(default_factory=list)  # the days its samples come from

    @property
    def samples(self) -> int:
        return len(self.days)

    @property
    def ready(self) -> bool:
        return self.samples >= MIN_WEEKS

    @property
    def noisy(self) -> bool:
        """The weeks disagree so much that a value outside the band says little."""
        return self.ready and bool(self.median) and self.high - self.median > NOISY * self.median

    def outside(self, value: float | None) -> int:
        """-1 below the band, 1 above it, 0 inside it (or no band, or no value)."""
        if value is None or not self.ready:
            return 0
        return -1 if value < self.low else 1 if value > self.high else 0


def runs_outside(points) -> list[list]:
    """[side, first slot, last slot, value before, the band at the first] of each run of
    consecutive (slot, value, band) points outside their band (no band, or a noisy one,
    judges nothing)."""
    runs, run, before = [], None, None
    for at, value, their in points:
        side = 0 if their is None or their.noisy else their.outside(value)
        if side and run and run[0] == side:
            run[2] = at
        elif side:
            run = [side, at, at, before, their]
            runs.append(run)
        else:
            run = None
        if value is not None:
            before = value
    return runs


def normal_of(samples: dict[date, float | None], least: float) -> Normal:
    """The normal of the values in `samples` (day -> value; None: no value that day);
    `least`: the band's smallest half-width, so a figure that was the same every week still
    allows its ordinary noise (a count's square root, a few points of a percentage)."""
    days = sorted(d for d, v in samples.items() if v is not None)
    values = [samples[d] for d in days]
    if not values:
        return Normal(None, None, None, [])
    mid = median(values)
    if len(values) < MIN_WEEKS:
        return Normal(mid, None, None, days)
    mad = median(abs(v - mid) for v in values)
    half = max(WIDTH * MAD_TO_SIGMA * mad, least)
    return Normal(mid, max(0.0, mid - half), mid + half, days)

"""What the bench reads off the dashboard's processes besides its sockets: the bridge's lag
from its Prometheus histogram, and where the CPU goes, sampled by py-spy.

The bridge's lag (an event's emission by the service to its application by the bridge,
`dashboard_bridge_lag_seconds`) comes in buckets (5, 10, 25, 50, 100 ms, ...): its p99 is
interpolated within the bucket it falls in, as Prometheus' `histogram_quantile` does.
py-spy samples a running process from outside (no change to it, a few % of a core);
without it on the PATH or beside the bench's Python the profile is left out, and says so.
"""

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
METRICS_TOKEN = "bench-metrics"
LAG = re.compile(r'^dashboard_bridge_lag_seconds_bucket\{le="([^"]+)"\} ([0-9.e+]+)$', re.M)


def lag_buckets(url: str) -> dict[float, float]:
    """The bridge's lag histogram (cumulative counts by upper bound) as /metrics says now;
    {} when it does not answer within a minute (the p99 is then left out)."""
    try:
        text = httpx.get(
            f"{url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=60
        ).text
    except httpx.HTTPError:
        return {}
    return {float(le): float(n) for le, n in LAG.findall(text)}


def lag_p99_ms(before: dict[float, float], after: dict[float, float]) -> float | None:
    """The p99 of the events applied between two reads of the histogram, in ms."""
    if not before or not after:
        return None
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    if not counts or not counts[-1]:
        return None
    rank, lower, below = 0.99 * counts[-1], 0.0, 0.0
    for bound, count in zip(bounds, counts, strict=True):
        if count >= rank:
            if bound == float("inf"):
                return round(lower * 1000, 1)  # beyond the last bound: at least that
            share = (rank - below) / (count - below) if count > below else 1.0
            return round((lower + (bound - lower) * share) * 1000, 1)
        lower, below = bound, count
    return None


def py_spy() -> str | None:
    return shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))


class Profile:
    """py-spy recording one process for `seconds`, its samples written as collapsed stacks."""

    def __init__(self, pid: int, seconds: float, out: Path, gil: bool = False):
        """`gil`: only the samples of the thread holding the GIL (where CPU goes, not who
        waits for it)."""
        self.out, self.process = out, None
        spy = py_spy()
        if spy:
            self.process = subprocess.Popen(
                [spy, "record", "--pid", str(pid), "--duration", str(max(1, round(seconds))),
                 "--rate", "100", "--format", "raw", "--nonblocking", "--output", str(out),
                 *(["--gil"] if gil else [])],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip

    def summary(self, top: int = 15) -> dict:
        """The functions the process spent its samples in: by their own time (the stack's
        last frame) and including what they called, as shares of all samples."""
        if not self.process:
            return {"skipped": "py-spy is not installed (pip install py-spy)"}
        self.process.wait(timeout=120)
        if not self.out.exists():
            return {"skipped": "py-spy could not record (ptrace refused?)"}
        own, total, samples = Counter(), Counter(), 0
        for line in self.out.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            frames = [short(f) for f in stack.split(";")]
            samples += int(count)
            own[frames[-1]] += int(count)
            for name in set(frames):
                total[name] += int(count)

        def shares(counter):
            return {k: round(100 * v / samples, 1) for k, v in counter.most_common(top)}

        return {
            "samples": samples,
            "file": self.out.name,
            "own_pct": shares(own),
            "inclusive_pct": shares(total),
        }


def short(frame: str) -> str:
    """`render (django/template/base.py:170)` as `render (django/template/base.py)`."""
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    for cut in ("site-packages/", f"{ROOT}/"):
        path = path.split(cut, 1)[-1]
    return f"{name} ({path})"

"""`make bench`'s runner on one scenario, as the bench smoke tests (tests/bench/) run it."""

import sys

from .processes import command_env, run


def bench(scenario: str, out, *more: str, timeout: float = 170):
    """`python -m bench.run` on one scenario, its results in `out`; it must succeed. It
    runs as `make bench` runs it: without pytest-django's DJANGO_SETTINGS_MODULE."""
    result = run(
        [sys.executable, "-m", "bench.run", "--scenarios", scenario, "--out", str(out)]
        + ["--no-plot", *more],
        env=command_env(),
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result

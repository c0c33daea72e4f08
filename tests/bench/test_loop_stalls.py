"""What the bench reports of a loop between two reads: the collector's passes apart from the
callbacks, however much CPU a pass took."""

from bench import loop_stalls


def row(count, cpu_s, over=(0, 0, 0)):
    return {"count": count, "cpu_s": cpu_s, "max_ms": cpu_s * 1000 / count} | {
        f"over_{b}ms": n for b, n in zip(loop_stalls.BOUNDS_MS, over, strict=True)
    }


def test_a_long_collector_pass_is_reported_apart_from_the_callbacks():
    before = {"task Bridge.run": row(1, 0.001)}
    after = {
        "task Bridge.run": row(5, 0.004),
        "callback _read_ready": row(40, 0.020, (1, 0, 0)),
        "gc generation 2": row(1, 0.080, (1, 1, 1)),  # ran within one of the callbacks
    }
    loop = loop_stalls.between(before, after)
    assert set(loop["by_cpu"]) == set(loop["by_stalls"]) | {"task Bridge.run"}
    assert list(loop["by_cpu"]) == ["callback _read_ready", "task Bridge.run"]
    assert list(loop["gc"]) == ["gc generation 2"]
    assert loop["by_cpu"]["task Bridge.run"]["count"] == 4
    assert loop["all"] == {
        "count": 44,
        "cpu_s": 0.023,
        "over_5ms": 1,
        "over_20ms": 0,
        "over_50ms": 0,
    }

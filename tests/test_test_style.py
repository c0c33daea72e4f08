"""The tests start, wait and poll only through the harness (dashboard/testing/): no direct
`subprocess`, no `time.sleep` or `asyncio.sleep`, no polling loop written by hand. A child
started by hand loses its log on failure and can outlive the run; a bare sleep or a
hand-made deadline assumes how fast the machine is. `processes.run`/`run_manage`/`Process`
start children, `wait_until`/`await_until` poll, `let_pass`/`let_pass_async`/`each_moment`
are time let pass on purpose, saying why. `asyncio.sleep(0)` only lets the loop run."""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# Where a pattern is the point of the test itself, with why. Keep it short.
ALLOWED: dict[tuple[str, str], str] = {
    ("live/test_leader.py", "time.sleep"): (
        "the leader's whole process freezes (a stalled VM): the sleep blocks its event loop"
    ),
}

SLEEPS = {"sleep", "wait_for_timeout"}
CLOCKS = {"monotonic", "perf_counter", "time"}


def _calls(nodes):
    """Calls in `nodes`, not looking into functions defined there (a check handed to a
    waiter is the waiter's business)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        base = func.value.id if isinstance(func.value, ast.Name) else ""
        return f"{base}.{func.attr}"
    return func.id if isinstance(func, ast.Name) else ""


def _yields(call: ast.Call) -> bool:
    """`asyncio.sleep(0)`: the loop runs what is ready, no time passes on purpose."""
    return [ast.dump(a) for a in call.args] == [ast.dump(ast.Constant(0))]


def _breaks(loop) -> bool:
    return any(isinstance(n, ast.Break | ast.Return) for n in ast.walk(loop))


def _mentions_deadline(nodes) -> bool:
    return any(
        isinstance(n, ast.Name) and "deadline" in n.id for node in nodes for n in ast.walk(node)
    )


def findings(source: str) -> list[tuple[int, str]]:
    """(line, what) for each direct subprocess, time.sleep and hand-written polling loop."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, "subprocess") for a in node.names if a.name == "subprocess"]
        elif isinstance(node, ast.ImportFrom):
            if node.module == "subprocess":
                found.append((node.lineno, "subprocess"))
            if node.module in ("time", "asyncio") and any(a.name == "sleep" for a in node.names):
                found.append((node.lineno, f"{node.module}.sleep"))
        elif isinstance(node, ast.Call) and _name(node) == "time.sleep":
            found.append((node.lineno, "time.sleep"))
        elif isinstance(node, ast.Call) and _name(node) == "asyncio.sleep" and not _yields(node):
            found.append((node.lineno, "asyncio.sleep"))
        elif isinstance(node, ast.While | ast.For | ast.AsyncFor):
            head = [node.test] if isinstance(node, ast.While) else []
            calls = [_name(c).rpartition(".")[2] for c in _calls([*head, *node.body])]
            sleeps = any(name in SLEEPS for name in calls)
            clock = any(name in CLOCKS for name in calls) or _mentions_deadline(head + node.body)
            polls = sleeps and (isinstance(node, ast.While) or _breaks(node))
            if polls or (isinstance(node, ast.While) and clock):
                found.append((node.lineno, "polling loop"))
    return found


def test_tests_start_wait_and_poll_only_through_the_harness():
    refused = []
    for path in sorted(TESTS.rglob("*.py")):
        name = path.relative_to(TESTS).as_posix()
        for line, what in findings(path.read_text()):
            if (name, what) not in ALLOWED:
                refused.append(f"tests/{name}:{line}: {what}")
    assert refused == [], "use the harness (dashboard/testing/processes.py):\n" + "\n".join(refused)


def test_the_lint_finds_each_pattern():
    poll = "while not ready():\n    time.sleep(0.1)\n"
    deadline = "while time.monotonic() < deadline:\n    check()\n"
    retry = "for _ in range(50):\n    if done():\n        break\n    time.sleep(0.1)\n"
    waiter = "def wait():\n    wait_until(lambda: done(), 5)\n"
    assert [what for _, what in findings("import subprocess\n")] == ["subprocess"]
    assert [what for _, what in findings("from time import sleep\n")] == ["time.sleep"]
    assert [what for _, what in findings("from asyncio import sleep\n")] == ["asyncio.sleep"]
    assert [what for _, what in findings("await asyncio.sleep(1.7)\n")] == ["asyncio.sleep"]
    assert findings("await asyncio.sleep(0)\n") == []
    assert ("polling loop") in {what for _, what in findings(poll)}
    assert [what for _, what in findings(deadline)] == ["polling loop"]
    assert ("polling loop") in {what for _, what in findings(retry)}
    assert findings(waiter) == []

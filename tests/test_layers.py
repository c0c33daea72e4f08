"""The rooms of the house and what each may import, read from every module's source (ast),
lazy imports inside functions included. docs/architecture.md draws the same picture.

Bottom to top: `shared` (what several apps use), then `upstream` (the adapter) and
`accounts`; `live` above them; `quality`, `reports` and `wallboard` above `live`, which
may use each other's modules but never their views, and never in a circle; `alerts` beside
them, above `live` (the composition root hands it what the others know); `drilldown`
(the agent and call pages) above them all; `replay` (the floor replay) above `live`; the
composition root (`main`) and `config` on top. Apart: the simulator (a peer over sockets:
nothing imports it, it imports nothing of ours), the harness (`dashboard.testing`, for
tests and bench only), bench (never tests), and tests (never each other).
"""

import ast
from pathlib import Path

from dashboard.testing.processes import ROOT

PRODUCT = (
    "shared",
    "upstream",
    "accounts",
    "live",
    "quality",
    "reports",
    "wallboard",
    "alerts",
    "drilldown",
    "replay",
    "inbound",
)
PEERS = {"quality", "reports", "wallboard"}
MAY_IMPORT = {
    "shared": set(),
    "upstream": {"shared"},
    "accounts": {"shared"},
    "live": {"shared", "upstream", "accounts"},
    **{peer: {"shared", "upstream", "accounts", "live", *PEERS} for peer in PEERS},
    "alerts": {"shared", "upstream", "accounts", "live"},
    "drilldown": {"shared", "upstream", "accounts", "live", *PEERS},
    "replay": {"shared", "upstream", "accounts", "live"},
    "inbound": {"shared", "upstream", "accounts", "live"},
    "config": {*PRODUCT},
    "main": {*PRODUCT, "config"},
    "simulator": set(),
    "testing": {*PRODUCT, "config", "main"},
    "bench": {*PRODUCT, "config", "main", "testing"},
    "tests": {*PRODUCT, "config", "main", "testing"},
}


def room_of(module: str) -> str | None:
    """The room a module of ours belongs to; None for everything else."""
    parts = module.split(".")
    if parts[0] in ("config", "bench", "tests"):
        return parts[0]
    if parts[0] == "dashboard" and len(parts) > 1 and parts[1] in (*MAY_IMPORT, "shared"):
        return parts[1]
    return None


def modules() -> dict[str, Path]:
    found = {}
    for top in ("config", "dashboard", "bench", "tests"):
        for path in (ROOT / top).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports(name: str, path: Path, known) -> list[tuple[str, int]]:
    """(module imported, line) for every import in the file, resolved to our modules."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                out.append((whole if whole in known else base, node.lineno))
    return out


def edges():
    """(importer, imported, where) for every import between two modules of ours."""
    known = modules()
    for name, path in sorted(known.items()):
        for target, line in sorted(set(imports(name, path, known)), key=lambda t: t[1]):
            if room_of(target):
                yield name, target, f"{path.relative_to(ROOT)}:{line} imports {target}"


def test_every_module_belongs_to_a_room():
    homeless = [name for name in modules() if name != "dashboard" and room_of(name) is None]
    assert homeless == []


def test_every_room_imports_only_the_rooms_below_it():
    wrong = []
    for importer, target, where in edges():
        mine, theirs = room_of(importer), room_of(target)
        if mine and theirs != mine and theirs not in MAY_IMPORT[mine]:
            allowed = ", ".join(sorted(MAY_IMPORT[mine])) or "nothing of ours"
            wrong.append(f"{where}: {mine} may import {allowed}")
    assert wrong == [], "\n".join(wrong)


def test_nothing_imports_the_simulator_or_a_test_module():
    """The simulator is a peer over sockets; tests share code through the harness only."""
    wrong = [
        where
        for importer, target, where in edges()
        if room_of(target) == "simulator"
        and room_of(importer) != "simulator"
        or room_of(target) == "tests"
    ]
    assert wrong == [], "\n".join(wrong)


def test_only_url_confs_import_views():
    """A page's context lives beside it in pages.py, so pushes, processors and other
    apps never use a view module as a library."""
    wrong = [
        where
        for importer, target, where in edges()
        if target.endswith(".views") and not importer.endswith("urls")
    ]
    assert wrong == [], "\n".join(wrong)


def test_the_apps_above_live_import_each_other_in_one_direction():
    first = {}  # (app, app) -> the first import that makes it
    for importer, target, where in edges():
        pair = (room_of(importer), room_of(target))
        if pair[0] in PEERS and pair[1] in PEERS and pair[0] != pair[1]:
            first.setdefault(pair, where)
    both_ways = [
        f"{first[(a, b)]}\n  and {first[(b, a)]}" for a, b in first if (b, a) in first and a < b
    ]
    assert both_ways == [], "\n".join(both_ways)


def test_no_module_of_the_product_imports_itself_in_a_circle():
    graph: dict[str, list[tuple[str, str]]] = {}
    for importer, target, where in edges():
        if room_of(importer) in (*PRODUCT, "main", "config") and importer != target:
            graph.setdefault(importer, []).append((target, where))
    circle = _circle(graph)
    assert circle is None, "\n".join(circle or [])


def _circle(graph) -> list[str] | None:
    """One cycle of the graph as the imports that make it, or None (depth-first search)."""
    done, path = set(), []

    def visit(node, on_path):
        on_path.add(node)
        for target, where in graph.get(node, []):
            path.append((node, where))
            if target in on_path:
                start = next(i for i, (n, _) in enumerate(path) if n == target)
                return [w for _, w in path[start:]]
            if target not in done and (found := visit(target, on_path)):
                return found
            path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for node in list(graph):
        if node not in done and (found := visit(node, set())):
            return found
    return None

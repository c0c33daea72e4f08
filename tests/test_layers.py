"""The rooms of the house and what each may import, read from every module's source (ast),
lazy imports inside functions included. docs/architecture.md draws the same picture.

Bottom to top: `shared` (what several apps use), then `upstream` (the adapter) and
`accounts`; `live` above them; `quality`, `reports` and `wallboard` above `live`, which
may use each other's modules but never their views, and never in a circle; `alerts` beside
them, above `live` (the composition root hands it what the others know); `drilldown`
(the agent and call pages) above them all; `replay` (the floor replay) above `live`; the
composition root (`main`) and `config` on top. Apart: the simulator (a peer over sockets:
nothing imports it, it imports nothing of ours), the harness (`dashboard.testing`, for
tests and bench only), bench (never tests), and tests (never each other; the bench's
tests may read its figures' functions).

Names that cross rooms (close codes, channel groups, cache keys) have one home each, a
registry in `shared`; only the rooms an entry names use it.
"""

import ast
import importlib
import inspect
import re
from pathlib import Path

from dashboard.testing.processes import ROOT
from dashboard.testing.routes import routes

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
    "interventions",
    "inbound",
    "normal",
    "states",
)
PEERS = {"quality", "reports", "wallboard"}
MAY_IMPORT = {
    "shared": set(),
    "upstream": {"shared"},
    "accounts": {"shared"},
    "live": {"shared", "upstream", "accounts"},
    **{peer: {"shared", "upstream", "accounts", "live", *PEERS} for peer in PEERS},
    "alerts": {"shared", "upstream", "accounts", "live"},
    "drilldown": {"shared", "upstream", "accounts", "live", *PEERS, "interventions", "states"},
    "replay": {"shared", "upstream", "accounts", "live", "states"},
    "interventions": {"shared", "upstream", "accounts", "live"},
    "inbound": {"shared", "upstream", "accounts", "live"},
    "normal": {"shared", "upstream", "accounts", "live", "quality", "reports", "inbound"},
    "states": {"shared", "upstream"},
    "config": {*PRODUCT},
    "main": {*PRODUCT, "config"},
    "simulator": set(),
    "testing": {*PRODUCT, "config", "main"},
    "bench": {*PRODUCT, "config", "main", "testing"},
    "tests": {*PRODUCT, "config", "main", "testing", "bench"},  # bench: its own figures
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


# ---- Names that cross rooms: one registry per kind in the shared room ----------------------

REGISTRIES = (
    "dashboard.shared.close_codes",
    "dashboard.shared.groups",
    "dashboard.shared.cache_keys",
)
NOT_PRODUCT = {"tests", "testing", "bench"}  # they may use any name, as the product does


def registry(module: str) -> dict:
    return importlib.import_module(module).REGISTRY


def test_every_registered_name_has_an_entry_and_every_entry_a_name():
    wrong = []
    for module in REGISTRIES:
        mod, entries = importlib.import_module(module), registry(module)
        declared = {
            name
            for name, value in vars(mod).items()
            if not name.startswith("_")
            and name != "REGISTRY"
            and (
                isinstance(value, str | int)
                and name.isupper()
                or inspect.isfunction(value)
                and value.__module__ == module
            )
        }
        wrong += [f"{module}.{name}: no entry in REGISTRY" for name in declared - set(entries)]
        wrong += [
            f"{module}: REGISTRY names {name}, not declared" for name in set(entries) - declared
        ]
        wrong += [
            f"{module}.{name}: room {room} is not a room"
            for name, entry in entries.items()
            for room in entry.rooms
            if room not in (*MAY_IMPORT, "browser")
        ]
    assert wrong == [], "\n".join(wrong)


def test_a_registered_name_is_used_only_by_the_rooms_its_entry_names():
    wrong = []
    for name, path in sorted(modules().items()):
        room = room_of(name)
        if room in NOT_PRODUCT or name in REGISTRIES:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module in REGISTRIES:
                entries = registry(node.module)
                for alias in node.names:
                    entry = entries.get(alias.name)
                    if entry is None or room not in entry.rooms:
                        rooms = ", ".join(sorted(entry.rooms)) if entry else "nobody: no entry"
                        wrong.append(
                            f"{path.relative_to(ROOT)}:{node.lineno} uses {alias.name}, "
                            f"registered for {rooms}"
                        )
    assert wrong == [], "\n".join(wrong)


def test_no_module_declares_a_registered_value_again():
    """A group name, cache key or close code written out a second time is a second home.
    Names that are a plain word ("live", "alerts") are left out: other things are named so."""
    values = {}
    for module in REGISTRIES:
        mod = importlib.import_module(module)
        values.update({getattr(mod, n): f"{module}.{n}" for n in registry(module) if n.isupper()})
    values = {v: n for v, n in values.items() if not (isinstance(v, str) and v.isalpha())}
    wrong = []
    for name, path in sorted(modules().items()):
        if room_of(name) in NOT_PRODUCT or name in REGISTRIES:
            continue
        for node in ast.parse(path.read_text(), str(path)).body:
            if (
                isinstance(node, ast.Assign | ast.AnnAssign)
                and isinstance(node.value, ast.Constant)
                and node.value.value in values
                and not isinstance(node.value.value, bool)
            ):
                wrong.append(
                    f"{path.relative_to(ROOT)}:{node.lineno} declares {node.value.value!r} "
                    f"again: import {values[node.value.value]}"
                )
    assert wrong == [], "\n".join(wrong)


# ---- Templates and scripts follow the rooms too ---------------------------------------------

TEMPLATES, SCRIPTS = ROOT / "templates", ROOT / "static" / "js"
# A template belongs to the room its folder names; these folders are named otherwise. The
# root folder's templates are the site's shell (base.html, the error pages): every page
# extends it, and it may include anything, as the composition root may import anything.
FOLDER_ROOM = {"figures": "shared", "registration": "accounts", "": "main"}
# A script belongs to the room its name starts with (wallboard_alerts.js: wallboard), a module
# to the room its folder names (live/painting.js: live); these serve every page or the header.
SCRIPT_ROOM = {
    "a11y": "shared",
    "charts": "shared",
    "confirm": "shared",
    "explain": "shared",
    "menu": "shared",
    "theme": "accounts",
    "views": "accounts",
}
TAG = re.compile(r"{%\s*(load|include|extends)\s+(.*?)\s*%}", re.S)
SCRIPT_TAG = re.compile(r"""{%\s*static\s+['"]js/([\w/]+)\.js['"]\s*%}""")
# `import … from "x"`, `export … from "x"`, `import "x"`
MODULE_IMPORT = re.compile(
    r"""^\s*(?:(?:import|export)\b[^"';]*?\bfrom|import)\s*["']([^"']+)["']""", re.M
)
TEMPLATE_NAME = re.compile(r"""["']([a-z_]+/[\w.-]+\.html)["']""")


def may_use(mine: str, theirs: str) -> bool:
    return theirs == mine or theirs in MAY_IMPORT[mine]


def template_room(name: str) -> str:
    folder = name.rpartition("/")[0].split("/")[0]
    return FOLDER_ROOM.get(folder, folder)


def script_room(stem: str) -> str:
    """`stem`: the script's path under static/js/, without ".js"."""
    folder, _, name = stem.rpartition("/")
    return folder.split("/")[0] if folder else SCRIPT_ROOM.get(name, name.split("_")[0])


def scripts() -> dict[str, Path]:
    """Every script and module under static/js/, by its stem (`live/painting`)."""
    return {
        path.relative_to(SCRIPTS).with_suffix("").as_posix(): path
        for path in sorted(SCRIPTS.rglob("*.js"))
    }


def tag_libraries() -> dict[str, str]:
    """Each of our template tag libraries (`{% load name %}`) and the room that holds it."""
    return {
        path.stem: path.parts[-3]
        for path in (ROOT / "dashboard").glob("*/templatetags/*.py")
        if path.stem != "__init__"
    }


def template_uses():
    """(template, its room, what it uses, that thing's room, what kind of use)."""
    libraries = tag_libraries()
    for path in sorted(TEMPLATES.rglob("*.html")):
        name = path.relative_to(TEMPLATES).as_posix()
        mine, text = template_room(name), path.read_text()
        for kind, args in TAG.findall(text):
            if kind == "load":
                names = args.split(" from ")[-1].split() if " from " in args else args.split()
                for library in names:
                    if library in libraries:
                        yield name, mine, library, libraries[library], "loads"
            elif args[:1] in "\"'":
                target = args[1:].split(args[0])[0]
                if not (kind == "extends" and "/" not in target):  # the shell: every page's
                    yield name, mine, target, template_room(target), f"{kind}s"
        for stem in SCRIPT_TAG.findall(text):
            yield name, mine, f"js/{stem}.js", script_room(stem), "loads the script"


def test_every_template_and_script_belongs_to_a_room():
    rooms = {*MAY_IMPORT}
    homeless = [
        path.relative_to(ROOT).as_posix()
        for path in TEMPLATES.rglob("*.html")
        if template_room(path.relative_to(TEMPLATES).as_posix()) not in rooms
    ] + [
        path.relative_to(ROOT).as_posix()
        for stem, path in scripts().items()
        if script_room(stem) not in rooms
    ]
    assert homeless == []


def test_templates_load_include_and_extend_only_the_rooms_below_them():
    wrong = [
        f"templates/{name} ({mine}) {kind} {target} ({theirs})"
        for name, mine, target, theirs, kind in template_uses()
        if not may_use(mine, theirs)
    ]
    assert wrong == [], "\n".join(wrong)


def test_modules_render_only_the_templates_of_the_rooms_below_them():
    wrong = []
    for name, path in sorted(modules().items()):
        mine = room_of(name)
        for line, text in enumerate(path.read_text().splitlines(), 1):
            for target in TEMPLATE_NAME.findall(text):
                theirs = template_room(target)
                if mine in MAY_IMPORT and theirs in MAY_IMPORT and not may_use(mine, theirs):
                    wrong.append(f"{path.relative_to(ROOT)}:{line} renders {target} ({theirs})")
    assert wrong == [], "\n".join(wrong)


def test_scripts_know_only_the_rooms_below_them():
    """A script names another room in its events ("live:applied") and data attributes
    (`data-live-at`, `dataset.liveAt`). A higher room plugs into a lower one through the
    events and attributes the lower one defines, never the other way round."""
    rooms = {*MAY_IMPORT} - {"tests", "bench", "config", "testing"}
    named = re.compile(r"""["'](\w+):\w+["']|data-(\w+)-|dataset\.([a-z]+)[A-Z]|\[data-(\w+)-""")
    wrong = []
    for stem, path in scripts().items():
        mine = script_room(stem)
        for line, text in enumerate(path.read_text().splitlines(), 1):
            for groups in named.findall(text):
                theirs = next(g for g in groups if g)
                if theirs in rooms and not may_use(mine, theirs):
                    wrong.append(
                        f"static/js/{stem}.js:{line} ({mine}) names {theirs}: {text.strip()}"
                    )
    assert wrong == [], "\n".join(wrong)


def test_modules_in_the_browser_import_only_the_rooms_below_them():
    """An ES module's imports are files under static/js/ of its room or the rooms below."""
    known, wrong, imports = scripts(), [], 0
    for stem, path in known.items():
        mine = script_room(stem)
        for target in MODULE_IMPORT.findall(path.read_text()):
            imports += 1
            resolved = (path.parent / target).resolve()
            inside = resolved.is_relative_to(SCRIPTS.resolve())
            theirs = (
                resolved.relative_to(SCRIPTS.resolve()).with_suffix("").as_posix()
                if inside
                else None
            )
            if theirs not in known:
                wrong.append(f"static/js/{stem}.js imports {target}: no such script")
            elif not may_use(mine, script_room(theirs)):
                wrong.append(
                    f"static/js/{stem}.js ({mine}) imports {target} ({script_room(theirs)})"
                )
    assert imports and wrong == [], "\n".join(wrong)


def test_a_room_names_another_rooms_pages_by_their_url_names():
    """A page's address is its room's to choose (the URL conf says where it is): another room
    asks `reverse()` for it by name, never writes its path ("/campaigns/") by hand."""
    owners = {
        route.path: room_of(route.code.__module__)
        for route in routes()
        if re.fullmatch(r"/[a-z-]+/", route.path)
    }
    wrong = []
    for name, path in sorted(modules().items()):
        mine = room_of(name)
        if mine not in PRODUCT or mine == "upstream":  # the adapter writes the service's paths
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and node.value in owners:
                theirs = owners[node.value]
                if theirs in PRODUCT and theirs != mine:
                    wrong.append(
                        f"{path.relative_to(ROOT)}:{node.lineno} writes {theirs}'s {node.value}"
                    )
    assert owners and wrong == [], "\n".join(wrong)

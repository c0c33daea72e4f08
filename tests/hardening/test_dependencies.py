"""The lock files: in step with pyproject.toml, every pin hashed, past the versions with
published advisories, and what this environment runs is exactly what they pin."""

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
ADVISORIES_FIXED_IN = {"django": "5.2.8", "daphne": "4.2.2", "python-socketio": "5.16.2"}
PIN = re.compile(r"^([A-Za-z0-9._-]+)==(\S+)(?: ; (.*?))? \\$", re.M)


def pins(lock: str) -> dict[str, tuple[Version, str]]:
    """Name -> (version, its block of text) of the pins that apply here (markers)."""
    text = (ROOT / lock).read_text()
    matches = list(PIN.finditer(text))
    found = {}
    for match, after in zip(matches, [*matches[1:], None], strict=True):
        name, version, marker = match.groups()
        if marker and not Requirement(f"x ; {marker}").marker.evaluate(default_environment()):
            continue
        block = text[match.start() : after.start() if after else None]
        found[canonicalize_name(name)] = (Version(version), block)
    return found


LOCKS = {"requirements.lock": [], "requirements-dev.lock": ["test", "bench"]}


@pytest.mark.parametrize(("lock", "extras"), LOCKS.items())
def test_the_lock_pins_every_dependency_of_pyproject_within_its_bounds(lock, extras):
    pinned = pins(lock)
    wanted = PROJECT["dependencies"] + [
        r for e in extras for r in PROJECT["optional-dependencies"][e]
    ]
    for line in wanted:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in {lock}: run `make lock`"
        assert pinned[name][0] in requirement.specifier, f"{lock} pins {name} outside {line}"


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_is_hashed_and_past_the_advisories(lock):
    pinned = pins(lock)
    for name, (_, block) in pinned.items():
        assert "--hash=sha256:" in block, name
    for name, fixed in ADVISORIES_FIXED_IN.items():
        assert pinned[name][0] >= Version(fixed), name
    for line in PROJECT["dependencies"]:
        requirement = Requirement(line)
        fixed = ADVISORIES_FIXED_IN.get(canonicalize_name(requirement.name))
        if fixed:  # pyproject's own bound too, for whoever installs without the lock
            floors = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
            assert floors and max(floors) >= Version(fixed), line


def test_this_environment_runs_exactly_what_the_dev_lock_pins():
    """`make test` installed from requirements-dev.lock, nothing resolved on the side."""
    for name, (version, _) in pins("requirements-dev.lock").items():
        assert Version(metadata.version(name)) == version, name

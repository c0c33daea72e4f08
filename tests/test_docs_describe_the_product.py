"""The docs and the code's comments describe the product as it is. How it came to be so
(which issue asked for it, which stop of the work, what a review found) is in git's log."""

import re
from pathlib import Path

from dashboard.testing.processes import ROOT

# An issue or a stop of the work by number, the issue that asked, the review that found,
# "previously". Product words are not matched: a token's issue, a bridge's stop.
HISTORY = re.compile(
    r"\b("
    + "|".join(
        [r"issue #?\d+", r"stop \d+\b(?! ?(s|ms|min)\b)", r"the (issue|review)\b", "previous(ly)"]
    )
    + ")",
    re.IGNORECASE,
)
PLACES = (
    "README.md",
    "Makefile",
    "pyproject.toml",
    "docs",
    "config",
    "dashboard",
    "tests",
    "static",
    "templates",
    "bench",
)
WRITTEN = ("*.md", "*.py", "*.js", "*.html", "*.css")
VENDORED = ("static/vendor/", "dashboard/testing/vendor/")
HERE = Path(__file__).resolve()


def written():
    """(path from the root, file) for each file of ours that people read."""
    for place in PLACES:
        path = ROOT / place
        found = [path] if path.is_file() else [f for kind in WRITTEN for f in path.rglob(kind)]
        for file in sorted(found):
            name = file.relative_to(ROOT).as_posix()
            if not name.startswith(VENDORED):
                yield name, file


def test_no_doc_or_comment_tells_the_history_of_its_making():
    found = [
        f"{name}:{number}: {line.strip()}"
        for name, file in written()
        for number, line in enumerate(file.read_text().splitlines(), 1)
        if HISTORY.search(line) and file != HERE  # its examples below
    ]
    assert found == [], "history belongs in the commit messages:\n" + "\n".join(found)


def test_the_check_finds_the_work_s_history_and_not_the_product_s_words():
    told = ["see issue 21", "Stop 29: the floor", "the issue's limit", "what the review found"]
    product = ["the issuer's token", "stop the bridge", "its stop 5 s later", "a review page"]
    assert all(HISTORY.search(line) for line in told)
    assert not any(HISTORY.search(line) for line in product)

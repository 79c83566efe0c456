"""Every document the code and the docs cite is in the repository: a Markdown document by its
name or path, a file of the checkout by its path, a test or function by ``file.py::name``. The
code, the tests, the docs and the page's own files (app/static) are all read."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.probe import REPO

CITED = re.compile(r"(?<![\w./-])([\w./-]*[\w-]\.md)\b")
# Where a bare name is looked for besides the citing file's own folder: the top of the
# checkout, docs/, and an exercise's folder (statement.md is a file every exercise has).
BARE_HOMES = ("", "docs")
# Files of an exercise's folder that the catalog reads (optional ones included): a name of the
# exercise format, not a document of this repository.
EXERCISE_FILES = ("statement.md", "theory.md")
# A path into the checkout, from one of its top folders: "app/grading/judge.py",
# "tests/sandbox/policy/test_readme.py". A path with a placeholder (<id>, *, {n}) is a pattern.
TOP = r"(?:app|sandbox|tests|bench|tools|docs|exercises|frontend|deploy|docker|\.ci)"
EXTENSIONS = r"(?:py|js|mjs|html|css|md|toml|json|sh|yml|yaml|txt|conf|lock)"
CITED_PATH = re.compile(rf"(?<![\w./-])({TOP}/[\w./<>*{{}}-]*[\w-]\.{EXTENSIONS})\b")
CITED_NAME = re.compile(r"(?<![\w./-])([\w./-]+\.py)::(\w+)")
# Paths that are data, not citations: a test's list of files the image must leave out.
NOT_CITED = {"tests/container/test_dockerfile.py": {"frontend/node_modules/x.js"}}


TEXTS = (".py", ".js", ".mjs", ".md", ".toml", ".sh", ".html", ".css", ".cfg")


def _tracked() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    kept = [REPO / name for name in listed if name.endswith(TEXTS) or name in ("Dockerfile",)]
    # The changelog tells history (files since renamed or gone); vendored code is not ours.
    # This file names missing documents on purpose, to show they are caught.
    skipped = {"CHANGELOG.md", Path(__file__).name}
    return [p for p in kept if p.name not in skipped and "vendor" not in p.parts]


def _resolves(cited: str, where: Path) -> bool:
    name = cited.lstrip("./")
    if (REPO / name).is_file() or (where.parent / cited).is_file():
        return True
    if "/" in name:
        return False
    if name in EXERCISE_FILES:
        return True
    homes = [REPO / home for home in BARE_HOMES]
    return any((home / name).is_file() for home in homes) or any(REPO.glob(f"exercises/*/{name}"))


def test_every_cited_document_exists() -> None:
    files = _tracked()
    assert len(files) > 50, "git ls-files found too little"
    missing = []
    for path in files:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for cited in CITED.findall(line):
                if not _resolves(cited, path):
                    missing.append(f"{path.relative_to(REPO)}:{number} cites {cited}")
    assert not missing, "\n".join(missing)


def _path_missing(cited: str, where: Path) -> bool:
    if any(mark in cited for mark in "<>*{}"):
        return False
    return not (REPO / cited).exists() and cited not in NOT_CITED.get(
        str(where.relative_to(REPO)), set()
    )


def _name_missing(cited: str, name: str) -> bool:
    target = REPO / cited
    if not target.is_file():
        return True
    defined = re.compile(rf"^\s*(?:async\s+)?(?:def|class)\s+{name}\b", re.M)
    return not defined.search(target.read_text(errors="replace"))


def test_every_cited_file_and_test_exists() -> None:
    missing = []
    for path in _tracked():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            where = f"{path.relative_to(REPO)}:{number} cites"
            missing += [f"{where} {c}" for c in CITED_PATH.findall(line) if _path_missing(c, path)]
            missing += [
                f"{where} {c}::{name}"
                for c, name in CITED_NAME.findall(line)
                if _name_missing(c, name)
            ]
    assert not missing, "\n".join(missing)


def test_the_page_and_the_docs_are_read_too() -> None:
    read = {path.relative_to(REPO).as_posix() for path in _tracked()}
    for folder in ("app/static", "docs"):
        own = {
            path.relative_to(REPO).as_posix()
            for path in (REPO / folder).rglob("*")
            if path.suffix in TEXTS and "vendor" not in path.parts
        }
        assert len(own) > 5 and own <= read, sorted(own - read)


def test_a_citation_of_a_missing_document_is_caught(tmp_path: Path) -> None:
    citing = REPO / "app" / "nowhere.py"  # never written: only its folder is used
    assert not _resolves("no-such-design.md", citing)
    assert not _resolves("docs/missing.md", citing)
    assert _resolves("architecture.md", citing) and _resolves("docs/security.md", citing)
    assert CITED.findall("see app/x.py and docs/a-b.md, then README.md.") == [
        "docs/a-b.md",
        "README.md",
    ]
    here = REPO / "docs" / "nowhere.md"
    assert _path_missing("app/grading/no_such_module.py", here)
    assert not _path_missing("app/grading/judge.py", here)
    assert not _path_missing("exercises/<id>/statement.md", here)
    assert _name_missing("tests/test_docs_cited.py", "test_that_was_never_written")
    assert not _name_missing("tests/test_docs_cited.py", "test_every_cited_file_and_test_exists")
    line = "see `tests/app/test_x.py::test_y`, app/static/dom.js and ../docs/a.md"
    assert CITED_PATH.findall(line) == ["tests/app/test_x.py", "app/static/dom.js"]
    assert CITED_NAME.findall(line) == [("tests/app/test_x.py", "test_y")]

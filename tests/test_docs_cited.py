"""Every document the code and the docs cite is in the repository."""

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


def _tracked() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    texts = (".py", ".js", ".md", ".toml", ".sh", ".html", ".cfg")
    kept = [REPO / name for name in listed if name.endswith(texts) or name in ("Dockerfile",)]
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


def test_a_citation_of_a_missing_document_is_caught(tmp_path: Path) -> None:
    citing = REPO / "app" / "nowhere.py"  # never written: only its folder is used
    assert not _resolves("no-such-design.md", citing)
    assert not _resolves("docs/missing.md", citing)
    assert _resolves("architecture.md", citing) and _resolves("docs/security.md", citing)
    assert CITED.findall("see app/x.py and docs/a-b.md, then README.md.") == [
        "docs/a-b.md",
        "README.md",
    ]

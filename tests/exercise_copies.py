"""A copy of one exercise folder that loads on its own, outside the exercises root.

A folder may name a theory page shared with another folder (`theory = "../other/theory.py"`),
which a copy standing alone would not find: the copy takes the page in beside it instead.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

from app.theory import shared_page

SHARED_THEORY = re.compile(r"^theory\s*=.*\n", flags=re.M)


def standalone_copy(source: Path, root: Path, *ignored: str) -> Path:
    """``source`` copied to ``root / source.name`` (without the ``ignored`` patterns), its shared
    theory page, if it names one, copied in as its own file."""
    copy = root / source.name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(*ignored) if ignored else None)
    toml = copy / "exercise.toml"
    named = tomllib.loads(toml.read_text()).get("theory")
    if named is not None:
        page = shared_page(source, named)
        shutil.copy(page, copy / page.name)
        toml.write_text(SHARED_THEORY.sub("", toml.read_text(), count=1))
    return copy

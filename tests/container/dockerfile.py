"""Read the Dockerfile's instructions and the .dockerignore allowlist, for the static tests.

The image itself is built and run for real by test_image.py and test_compose.py.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Instruction:
    keyword: str
    args: str
    line: int

    def exec_form(self) -> list[str] | None:
        """The JSON-array form of CMD/RUN/HEALTHCHECK CMD arguments, or None (shell form)."""
        text = self.args.strip()
        if not text.startswith("["):
            return None
        value = json.loads(text)
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ValueError(f"line {self.line}: not a JSON array of strings: {text}")
        return value


def parse(path: Path) -> list[Instruction]:
    """Instructions in order, with continuation lines joined and comment lines dropped."""
    instructions: list[Instruction] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue  # a comment inside a continued instruction is skipped by Docker too
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        text = " ".join(part for part in pending if part)
        pending = []
        keyword, _, args = text.partition(" ")
        instructions.append(Instruction(keyword.upper(), args.strip(), start))
    if pending:
        raise ValueError(f"line {start}: instruction continued past the end of the file")
    return instructions


def final_stage(instructions: list[Instruction]) -> list[Instruction]:
    starts = [i for i, ins in enumerate(instructions) if ins.keyword == "FROM"]
    return instructions[starts[-1] :] if starts else instructions


def last(instructions: list[Instruction], keyword: str) -> Instruction | None:
    found = [ins for ins in final_stage(instructions) if ins.keyword == keyword]
    return found[-1] if found else None


def healthcheck_command(instruction: Instruction) -> list[str]:
    """The exec-form command of ``HEALTHCHECK [OPTIONS] CMD [...]``."""
    options, marker, command = instruction.args.partition("CMD ")
    if not marker:
        raise ValueError(f"line {instruction.line}: HEALTHCHECK without CMD")
    parsed = Instruction("CMD", command, instruction.line).exec_form()
    if parsed is None:
        raise ValueError(f"line {instruction.line}: HEALTHCHECK CMD should use the exec form")
    return parsed


def dockerignore_allows(patterns: list[str], path: str) -> bool:
    """Whether a build-context path survives .dockerignore (last matching pattern wins)."""
    allowed = True
    parts = path.strip("/").split("/")
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern[1:] if negate else pattern
        pattern = pattern.strip("/")
        # A pattern matching a parent directory matches everything under it.
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if any(_ignore_match(pattern, prefix) for prefix in prefixes):
            allowed = negate
    return allowed


def _ignore_match(pattern: str, path: str) -> bool:
    if pattern.startswith("**/"):
        tail = pattern[3:]
        segments = path.split("/")
        return any(fnmatch.fnmatchcase("/".join(segments[i:]), tail) for i in range(len(segments)))
    return fnmatch.fnmatchcase(path, pattern)


def read_dockerignore(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]

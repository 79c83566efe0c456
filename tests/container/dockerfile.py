"""Read the Dockerfile, and replay its install steps on this machine without Docker.

Only what the judge's Dockerfile uses is understood: FROM, ENV, WORKDIR, COPY, RUN, USER,
EXPOSE, HEALTHCHECK, CMD. A RUN step is split at ``&&`` and each command is either run as
written (``python -m venv``, ``pip install``, ``python -c``) or mirrored by a known equivalent
(``useradd``, ``install -d``). Anything else fails the replay, so a new step in the Dockerfile
cannot be skipped silently: teach this file how to mirror it.

Container paths are mapped under one host directory (``root``): ``/opt/venv`` becomes
``root/opt/venv`` and so on, in commands and in ENV values alike. The base image's ``python``
is a symlink at ``root/usr/local/bin/python`` to a host interpreter of the same minor version.
"""

from __future__ import annotations

import fnmatch
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

# What the python:*-slim base image sets (and a stage inherits) before the Dockerfile's ENV.
BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG": "C.UTF-8",
}


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


def parse_env(args: str, current: dict[str, str]) -> dict[str, str]:
    """``ENV A=1 B=$A:x`` -> {"A": "1", "B": "1:x"} (the legacy ``ENV A 1`` form too)."""
    tokens = shlex.split(args)
    if tokens and "=" not in tokens[0]:
        pairs = [(tokens[0], " ".join(tokens[1:]))]
    else:
        pairs = [tuple(token.split("=", 1)) for token in tokens]  # type: ignore[misc]
    values = dict(current)
    result: dict[str, str] = {}
    for name, value in pairs:
        expanded = re.sub(
            r"\$\{(\w+)\}|\$(\w+)", lambda m: values.get(m.group(1) or m.group(2), ""), value
        )
        result[name] = expanded
    values.update(result)
    return result


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


@dataclass
class Replay:
    """The Dockerfile's build, replayed under ``root`` with host commands."""

    context: Path
    root: Path
    python: str
    run_uid: int
    log: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=lambda: dict(BASE_ENV))  # container values
    workdir: str = "/"
    user: str = "root"
    users: dict[str, int] = field(default_factory=dict)
    mapped: set[str] = field(default_factory=lambda: {"/usr/local/bin"})

    # -- paths ------------------------------------------------------------------------

    def host(self, container_path: str) -> str:
        """Where a container path lives on the host during the replay."""
        path = (
            container_path
            if container_path.startswith("/")
            else os.path.join(self.workdir, container_path)
        )
        path = os.path.normpath(path)
        for prefix in sorted(self.mapped, key=len, reverse=True):
            if path == prefix or path.startswith(prefix + "/"):
                return str(self.root) + path
        return path

    def map_text(self, text: str) -> str:
        """Replace every mapped container path inside a command word or an ENV value."""
        prefixes = "|".join(re.escape(p) for p in sorted(self.mapped, key=len, reverse=True))
        pattern = r"(?<![\w.-])(" + prefixes + r")(?=$|[/:\s'\"])"
        return re.sub(pattern, lambda m: str(self.root) + m.group(1), text)

    def host_env(self, *, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {name: self.map_text(value) for name, value in self.env.items()}
        env.update(extra or {})
        return env

    # -- replay -----------------------------------------------------------------------

    def run(self, instructions: list[Instruction]) -> None:
        bin_dir = Path(self.host("/usr/local/bin"))
        bin_dir.mkdir(parents=True, exist_ok=True)
        if not (bin_dir / "python").exists():
            (bin_dir / "python").symlink_to(self.python)
        for ins in instructions:
            handler = getattr(self, "_do_" + ins.keyword.lower(), None)
            if handler is None:
                raise AssertionError(f"line {ins.line}: cannot replay {ins.keyword}")
            handler(ins)

    def _do_from(self, ins: Instruction) -> None:
        self.env, self.workdir, self.user = dict(BASE_ENV), "/", "root"
        self.log.append(f"FROM {ins.args}: a new stage under the same root")

    def _do_env(self, ins: Instruction) -> None:
        self.env.update(parse_env(ins.args, self.env))

    def _do_workdir(self, ins: Instruction) -> None:
        target = os.path.normpath(os.path.join(self.workdir, ins.args.strip()))
        self.mapped.add(target)
        Path(self.host(target)).mkdir(parents=True, exist_ok=True)
        self.workdir = target

    def _do_user(self, ins: Instruction) -> None:
        self.user = ins.args.strip()

    def _do_expose(self, ins: Instruction) -> None:
        pass

    def _do_healthcheck(self, ins: Instruction) -> None:
        pass

    def _do_cmd(self, ins: Instruction) -> None:
        pass

    def _do_copy(self, ins: Instruction) -> None:
        words = shlex.split(ins.args)
        flags = [w for w in words if w.startswith("--")]
        paths = [w for w in words if not w.startswith("--")]
        *sources, dest = paths
        if any(flag.startswith("--from=") for flag in flags):
            for source in sources:
                # Stages share one root here: a copy between them to the same path is a no-op.
                if os.path.normpath(source) != os.path.normpath(dest):
                    shutil.copytree(self.host(source), self.host(dest), dirs_exist_ok=True)
                self.mapped.add(os.path.normpath(dest))
            return
        unknown = [f for f in flags if not f.startswith(("--chown=", "--chmod="))]
        if unknown:
            raise AssertionError(f"line {ins.line}: cannot replay COPY {unknown}")
        matches: list[Path] = []
        for source in sources:
            found = sorted(glob.glob(str(self.context / source)))
            if not found and not glob.has_magic(source):
                raise AssertionError(f"line {ins.line}: COPY source {source} does not exist")
            matches += [Path(f) for f in found]
        target = Path(self.host(dest))
        into_dir = dest.endswith("/") or len(sources) > 1
        for match in matches:
            if match.is_dir():
                shutil.copytree(
                    match,
                    target,
                    dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
                )
            else:
                goal = target / match.name if into_dir else target
                goal.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(match, goal)

    def _do_run(self, ins: Instruction) -> None:
        if ins.exec_form() is not None:
            raise AssertionError(f"line {ins.line}: exec-form RUN is not replayed")
        for piece in re.split(r"\s*&&\s*", ins.args):
            self._run_piece(shlex.split(piece), ins.line)

    def _run_piece(self, words: list[str], line: int) -> None:
        if not words:
            return
        program = os.path.basename(words[0])
        if program == "useradd":
            uid = int(words[words.index("--uid") + 1]) if "--uid" in words else self.run_uid
            self.users[words[-1]] = uid
            self.log.append(f"useradd {words[-1]} (uid {uid}): mirrored by running as uid {uid}")
            return
        if program == "install" and "-d" in words:
            self._install_dir(words, line)
            return
        if program in ("python", "python3", "pip", "pip3"):
            if words[1:3] == ["-m", "venv"]:
                self.mapped.add(os.path.normpath(words[-1]))
            command = [self.map_text(word) for word in words]
            self.log.append("$ " + shlex.join(command))
            home = self.root / "build-home"
            home.mkdir(exist_ok=True)
            env = self.host_env(extra={"HOME": str(home), **_pip_settings()})
            completed = subprocess.run(
                command,
                cwd=self.host(self.workdir),
                env=env,
                capture_output=True,
                text=True,
                umask=0o022,
                timeout=900,
                check=False,
                executable=shutil.which(command[0], path=env["PATH"]),
            )
            if completed.returncode != 0:
                raise AssertionError(
                    f"line {line}: {shlex.join(command)} failed ({completed.returncode})\n"
                    + completed.stdout[-3000:]
                    + completed.stderr[-3000:]
                )
            return
        raise AssertionError(f"line {line}: no replay for {shlex.join(words)!r}: teach me")

    def _install_dir(self, words: list[str], line: int) -> None:
        owner, mode, targets = None, 0o755, []
        i = 1
        while i < len(words):
            word = words[i]
            if word in ("-o", "-g", "-m"):
                value = words[i + 1]
                if word == "-o":
                    owner = self.users.get(value, int(value) if value.isdigit() else None)
                    if owner is None:
                        raise AssertionError(f"line {line}: unknown user {value}")
                elif word == "-m":
                    mode = int(value, 8)
                i += 2
                continue
            if word != "-d":
                targets.append(word)
            i += 1
        for target in targets:
            path = Path(self.host(target))
            path.mkdir(parents=True, exist_ok=True)
            if owner is not None:
                os.chown(path, owner, owner)
            os.chmod(path, mode)
            self.log.append(f"install -d {target} (owner {owner}, mode {oct(mode)})")

    def run_ids(self) -> tuple[int, int]:
        """The (uid, gid) of the final USER, resolved like Docker does."""
        user, _, group = self.user.partition(":")
        uid = int(user) if user.isdigit() else self.users[user]
        gid = int(group) if group.isdigit() else (self.users[group] if group else uid)
        return uid, gid


def _pip_settings() -> dict[str, str]:
    """This machine's package-index settings, so pip reaches the same registries as the host."""
    keep = ("PIP_", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy")
    return {name: value for name, value in os.environ.items() if name.startswith(keep)}

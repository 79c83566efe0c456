# The judge: the web app and its warm, confined sandbox in one container.
#
#   docker build -t judge .
#   docker run --rm --init -p 8000:8000 judge        # then open http://127.0.0.1:8000/
#
# Which confinement layers are on in a default `docker run`, and what an operator adds for the
# rest: docs/container.md. In short, as the non-root user below and under Docker's default
# seccomp profile: rlimits, clean_env, no_new_privs, seccomp and the RestrictedPython policy are
# on; uid_drop is off (nothing to drop: the server is already unprivileged, which the start-up
# check accepts); Landlock is on when the host kernel has it enabled and Docker Engine is 20.10.18
# or newer, whose default profile allows the landlock_* syscalls (moby/moby#43199, backported in
# #43991; moby/profiles seccomp/default.json). On older engines the syscall fails with EPERM or
# ENOSYS and the judge records "landlock: off" instead of failing. The default profile also
# allows seccomp() and prctl(PR_SET_SECCOMP / PR_SET_NO_NEW_PRIVS), so the child's own filter
# stacks under Docker's. `make image` (docker/build.sh) builds this file with podman or docker;
# tests/container/test_image.py builds it with podman, runs it with defaults and checks all this.

# Pinned by tag only: no registry could be reached where this was written, so the digest could
# not be resolved (docker/base.sh then builds a local Debian stand-in under this name). Pin it
# when you build (`docker buildx imagetools inspect IMAGE` prints it):
# FROM python:3.11-slim-bookworm@sha256:<digest>
FROM python:3.11-slim-bookworm AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src

# Every runtime dependency and the build backend, one version each, checked against its hashes
# (requirements.lock; regenerate with docker/lock.sh).
COPY requirements.lock ./
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --require-hashes -r requirements.lock

# The project itself: no dependency resolution, no build backend fetched from the network.
# The whole context (.dockerignore keeps tests, docs and local state out): pyproject.toml's
# package list decides what is installed, so a new package needs no change here. Only the
# venv leaves this stage.
COPY . ./
RUN /opt/venv/bin/pip install --no-cache-dir --no-deps --no-build-isolation .


FROM python:3.11-slim-bookworm

# exercises/ is data next to the code, not inside the installed package: point the judge at it.
# The submission history (SQLite) lives in /app/var: mount a volume there to keep it.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    JUDGE_EXERCISES_DIR=/app/exercises \
    JUDGE_DATABASE_URL=sqlite:////app/var/judge.sqlite3

RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /app \
    --shell /usr/sbin/nologin judge

COPY --from=build /opt/venv /opt/venv

WORKDIR /app
COPY exercises ./exercises

# libseccomp2 comes with the base image (apt depends on it): fail the build here, not at the
# first submission, if the seccomp filter cannot be compiled. Code and exercises stay owned by
# root and read-only for the judge; only var/ is writable.
RUN python -c "from sandbox.seccomp import SyscallFilter; SyscallFilter()" \
    && install -d -o judge -g judge -m 0750 /app/var

USER 10001:10001

EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import json, sys, urllib.request as u; r = u.urlopen('http://127.0.0.1:8000/api/health', timeout=4); sys.exit(0 if json.load(r).get('status') == 'ok' else 1)"]

CMD ["judge", "serve", "--host", "0.0.0.0", "--port", "8000"]

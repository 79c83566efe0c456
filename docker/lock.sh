#!/usr/bin/env bash
# Regenerate requirements.lock: every runtime dependency of the judge (and the build backend the
# Dockerfile installs the project with), pinned to one version with the hashes of every file PyPI
# has for it, so `pip install --require-hashes` works on x86_64 and aarch64 alike.
#
# Versions follow pyproject.toml's ranges, held to what the development venv (.venv) runs when
# it exists, so the image runs what the tests ran. Usage: docker/lock.sh  (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet pip-tools
constraints=()
if [ -x .venv/bin/pip ]; then
    .venv/bin/pip freeze --exclude-editable > "$scratch/dev-freeze.txt"
    constraints=(--constraint "$scratch/dev-freeze.txt")
fi
# Hashes come from PyPI itself, not from a local mirror or wheel cache that has one platform.
env -u PIP_FIND_LINKS -u PIP_EXTRA_INDEX_URL PIP_CONFIG_FILE=/dev/null \
    CUSTOM_COMPILE_COMMAND="docker/lock.sh" \
    "$scratch/venv/bin/pip-compile" --quiet --generate-hashes --allow-unsafe --all-build-deps \
    --strip-extras --no-emit-index-url --index-url https://pypi.org/simple \
    "${constraints[@]}" --output-file requirements.lock pyproject.toml
# pip-compile names the scratch constraints file in "via" comments: keep the lock stable.
sed -i "s|$scratch/dev-freeze.txt|.venv (pip freeze)|" requirements.lock
echo "wrote requirements.lock"

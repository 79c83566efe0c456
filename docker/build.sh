#!/usr/bin/env bash
# Build the judge image from the Dockerfile with podman or docker: `make image`.
#
# The base comes from docker/base.sh (already present, pulled, or a cached local Debian
# stand-in). With podman the build runs as it did on our machines: runc, open-file and process
# limits within this host's hard limits, the host's CA bundle and network for pip's downloads,
# and the docker image format (the OCI format drops HEALTHCHECK).
#
# Usage: docker/build.sh [TAG]   (default judge:latest; JUDGE_ENGINE=podman|docker to choose)
set -euo pipefail
cd "$(dirname "$0")/.."

tag=${1:-judge:latest}

engine=${JUDGE_ENGINE:-}
if [ -z "$engine" ]; then
    if command -v podman >/dev/null; then
        engine=podman
    elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
        engine=docker
    else
        echo "build: neither podman nor a running docker engine was found" >&2
        exit 1
    fi
fi

# Every FROM that is not an earlier stage names a base to have locally.
mapfile -t bases < <(awk '
    toupper($1) == "FROM" {
        image = $2; for (i = 2; i <= NF; i++) if (toupper($i) == "AS") stages[$(i + 1)] = 1
        if (!(image in stages)) print image
    }' Dockerfile | sort -u)

cmd=("$engine")
build=(build --tag "$tag")
if [ "$engine" = podman ]; then
    # crun refuses this kernel's hybrid cgroup setup; runc works. Podman's default limits are
    # above this machine's hard limits, which the OCI runtime cannot raise.
    cmd+=(--runtime "${JUDGE_OCI_RUNTIME:-runc}")
    build+=(--format docker --pull=never
        --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 --network host)
    ca=/etc/ssl/certs/ca-certificates.crt
    if [ -s "$ca" ]; then
        build+=(--volume "$ca:$ca:ro")
    fi
fi

for base in "${bases[@]}"; do
    docker/base.sh "${cmd[@]}" "$base"
done

started=$(date +%s)
"${cmd[@]}" "${build[@]}" .
echo "build: $tag built in $(($(date +%s) - started)) s with $engine" >&2
"${cmd[@]}" image inspect "$tag" --format '{{.Size}}' |
    awk -v tag="$tag" '{ printf "build: %s is %.0f MB\n", tag, $1 / 1e6 }' >&2

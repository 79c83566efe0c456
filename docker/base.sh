#!/usr/bin/env bash
# Make sure the Dockerfile's base image is in the engine's local store, for docker/build.sh.
#
# In order: the image is already there (pulled earlier, or built here before); the registry
# gives it (`ENGINE pull`, bounded in time); or a stand-in is made from Debian bookworm with
# `debootstrap --variant=minbase` plus the Python the Dockerfile needs, and tagged with the
# base's name. The stand-in's root filesystem is kept as a tarball in $JUDGE_IMAGE_CACHE
# (default /var/cache/judge-image), so a later run on the same machine only imports it.
#
# Usage: docker/base.sh ENGINE... BASE   e.g. docker/base.sh podman --runtime runc python:3.11-slim-bookworm
# JUDGE_IMAGE_BASE=auto (default) | pull (registry only) | local (stand-in only).
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin  # debootstrap lives there, and a non-login root shell may lack it

base=${!#}
engine=("${@:1:$#-1}")
mode=${JUDGE_IMAGE_BASE:-auto}
cache=${JUDGE_IMAGE_CACHE:-/var/cache/judge-image}
suite=bookworm
mirror=${JUDGE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the Dockerfile's steps use from the base: python and venv (pip comes with ensurepip),
# libseccomp2 for the sandbox's filter, CA certificates for pip's downloads.
packages=python3,python3-venv,python-is-python3,libseccomp2,ca-certificates
# A short name resolves to Docker Hub in Docker; the fully qualified name is what both engines
# find locally for `FROM python:...` without asking a registry.
case $base in
    */*/*) qualified=$base ;;
    */*) qualified=docker.io/$base ;;
    *) qualified=docker.io/library/$base ;;
esac

log() { printf 'base: %s\n' "$*" >&2; }

if [ "$mode" != local ] && "${engine[@]}" image inspect "$qualified" >/dev/null 2>&1; then
    log "$qualified is already in the local store"
    exit 0
fi

if [ "$mode" != local ]; then
    log "pulling $qualified"
    if timeout 120 "${engine[@]}" pull -q "$qualified" >/dev/null 2>&1; then
        log "pulled $qualified"
        exit 0
    fi
    if [ "$mode" = pull ]; then
        log "cannot pull $qualified and JUDGE_IMAGE_BASE=pull"
        exit 1
    fi
    log "no registry answered: using a local Debian $suite stand-in"
fi

tarball=$cache/$suite-minbase-python.tar
stamp=$cache/$suite-minbase-python.packages
if [ ! -s "$tarball" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$packages" ]; then
    command -v debootstrap >/dev/null || { log "debootstrap is not installed"; exit 1; }
    [ "$(id -u)" = 0 ] || { log "debootstrap needs root"; exit 1; }
    mkdir -p "$cache"
    rootfs=$(mktemp -d "$cache/rootfs.XXXXXX")
    trap 'rm -rf "$rootfs"' EXIT
    log "debootstrap $suite into $rootfs (a few minutes, once per machine)"
    debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" \
        >"$cache/debootstrap.log" 2>&1 || { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
    # Where updates come from, for an `apt-get` in a derived image (none is run here).
    cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb ${mirror%/debian}/debian-security $suite-security main
EOF
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
    tar --numeric-owner -C "$rootfs" -cf "$tarball.part" .
    mv "$tarball.part" "$tarball"
    printf '%s\n' "$packages" >"$stamp"
    rm -rf "$rootfs"
    trap - EXIT
else
    log "reusing $tarball"
fi

"${engine[@]}" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["python3"]' \
    --change "LABEL org.opencontainers.image.description=\"Debian $suite minbase + python3: a local stand-in for $base\"" \
    "$tarball" "$qualified" >/dev/null
log "imported $tarball as $qualified"

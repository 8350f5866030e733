#!/usr/bin/env bash
# The base images the Dockerfile and docker-compose.yml name, made from
# Debian's packages (no Docker Hub here) and tagged with those names, so that
# both run unchanged under podman (deploy/ci/stack.sh):
#
#   python:3.11-slim       Debian's python3.11 (3.11.2 plus Debian's fixes;
#                          the official image builds the newest 3.11.x) with
#                          venv and ensurepip, `python` on the PATH
#   postgres:16-alpine     Debian's PostgreSQL 15 (bookworm has no 16); an
#                          entrypoint doing what the official one does for
#                          compose: POSTGRES_USER/PASSWORD/DB on an empty
#                          PGDATA, password auth from the network, runs as
#                          postgres; pg_isready, pg_dump, pg_restore on the PATH
#   redis:7-alpine         Debian's Redis 7.0 (the official image follows 7.x);
#                          runs as redis, protected mode off like the official
#                          image (no config file: reachable on the network)
#   nginx:1.27-alpine      Debian's nginx 1.22 (no `resolve` on upstream
#                          servers, which the template does not use); renders
#                          /etc/nginx/templates/*.template with envsubst of the
#                          variables set, into conf.d, as the official image
#                          does; wget for the compose health check
#   caddy:2-alpine         Debian's Caddy 2.6 (tls profile)
#   prom/prometheus:v3.0.1 Debian's Prometheus 2.42 (monitoring profile; the
#                          scrape configuration uses nothing 3.x added)
#   grafana/grafana:11.3.0 not made: Debian does not package Grafana
#
# Each is built once and kept in podman's storage: a later run finds it by
# its recipe label (a hash of this script and deploy/ci/images/) and skips
# it; a change to the recipe rebuilds them. FORCE=1 rebuilds anyway.
#   deploy/ci/images.sh            (as root; needs podman, runc, debootstrap)
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")"
source ./podman-env.sh

SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
LABEL=org.dicecup.ci.recipe

fresh() {  # fresh IMAGE RECIPE: is the image there, built from this recipe?
    [ "${FORCE:-0}" != 1 ] &&
        [ "$(podman image inspect "$1" --format "{{index .Labels \"$LABEL\"}}" 2>/dev/null)" = "$2" ]
}

timed() {  # timed NAME COMMAND...: run it, print how long it took
    local start=$SECONDS
    "${@:2}"
    echo "==> image $1: $((SECONDS - start)) s"
}

base() {
    local root
    root=$(mktemp -d /var/tmp/dicecup-rootfs.XXXXXX)
    debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" >"$root.log" 2>&1 ||
        { tail -20 "$root.log"; rm -rf "$root" "$root.log"; return 1; }
    rm -f "$root.log"
    cat >"$root/etc/apt/sources.list" <<LIST
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY $SUITE-security main
LIST
    # what an image build needs: no services started by package scripts, no
    # recommends, no documentation
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$root/etc/apt/apt.conf.d/90dicecup-ci"
    printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\npath-include /usr/share/doc/*/copyright\n' \
        >"$root/etc/dpkg/dpkg.cfg.d/90dicecup-ci"
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/*/[!c]* \
        "$root"/usr/share/man/* "$root"/usr/share/locale/*
    tar -C "$root" -c . | podman import --change "LABEL $LABEL=$BASE_RECIPE" --change "CMD [\"bash\"]" - "$BASE" >/dev/null 2>&1
    rm -rf "$root"
}

image() {  # image NAME KIND RECIPE: images/KIND.Containerfile on the base
    podman build --quiet --network host --build-arg "BASE=$BASE" --label "$LABEL=$3" \
        -f "images/$2.Containerfile" -t "$1" images >/dev/null
}

# The base's recipe is how it is made; each image's, the base's and its own
# files' (images/KIND.*, images/KIND-*).
BASE_RECIPE=$( (declare -f base; echo "$SUITE $MIRROR $SECURITY") | sha256sum | cut -c1-16)
BASE=localhost/dicecup-ci/$SUITE:$BASE_RECIPE
fresh "$BASE" "$BASE_RECIPE" || timed "debian $SUITE (debootstrap)" base
current=("$BASE_RECIPE")
for spec in python:3.11-slim=python postgres:16-alpine=postgres redis:7-alpine=redis \
    nginx:1.27-alpine=nginx caddy:2-alpine=caddy prom/prometheus:v3.0.1=prometheus; do
    name=${spec%=*} kind=${spec#*=}
    files=(images/"$kind".* images/"$kind"-*)
    recipe=$( (echo "$BASE_RECIPE"; cat "${files[@]}") | sha256sum | cut -c1-16)
    fresh "$name" "$recipe" || timed "$name" image "$name" "$kind" "$recipe"
    current+=("$recipe")
done
# Images of older recipes go (their tags have moved to the new ones), not the
# layers podman builds on the current ones keep (its build cache).
podman images --filter reference='localhost/dicecup-ci/*' --format '{{.Repository}}:{{.Tag}}' |
    grep -vx "$BASE" | xargs -r podman rmi >/dev/null 2>&1 || true
podman images --filter dangling=true --filter "label=$LABEL" --format "{{.ID}} {{index .Labels \"$LABEL\"}}" |
    grep -v -F -f <(printf '%s\n' "${current[@]}") | cut -d' ' -f1 | xargs -r podman rmi >/dev/null 2>&1 || true
podman images --filter reference='localhost/dicecup-ci/*' --format '{{.Repository}}:{{.Tag}} {{.Size}}'
for spec in python:3.11-slim postgres:16-alpine redis:7-alpine nginx:1.27-alpine caddy:2-alpine prom/prometheus:v3.0.1; do
    echo "$spec $(podman image inspect "$spec" --format '{{.Size}}' | awk '{printf "%.0f MB", $1 / 1e6}')"
done

#!/usr/bin/env bash
# CI's run of the shipped image and compose stack (issue 31): the base
# images from Debian's packages (images.sh; kept between runs), podman-compose
# in a venv of its own (pinned, hashes checked: requirements.txt), then
# stack.py's steps, each timed. Needs root, podman, runc, debootstrap, and the
# repository's .venv (make install) for the game clients.
#   deploy/ci/stack.sh           KEEP=1 leaves the stack up afterwards
set -euo pipefail
cd "$(dirname "$0")"
source ./podman-env.sh
root=$(cd ../.. && pwd)

start=$SECONDS
./images.sh
echo "==> base images: $((SECONDS - start)) s"

venv=$DICECUP_CI_STATE/venv
if ! cmp -s requirements.txt "$venv/requirements.txt" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --require-hashes -r requirements.txt
    cp requirements.txt "$venv/requirements.txt"
fi
export PODMAN_COMPOSE=$venv/bin/podman-compose

status=0
"$root/.venv/bin/python" stack.py || status=$?
# Each run leaves its image's older build untagged: those a week old go
# (podman's build cache keeps the rest, so the next run is fast).
podman image prune -f --filter until=168h >/dev/null 2>&1 || true
exit $status

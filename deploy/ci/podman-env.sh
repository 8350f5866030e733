# Sourced by deploy/ci/*.sh: how podman runs on this kind of machine.
#  - runc, not crun (crun fails here on setrlimit);
#  - open files and processes within this shell's own hard limits: as root
#    podman asks for more than that by default (1048576 open files), which
#    needs CAP_SYS_RESOURCE, and a CI runner may not have it. Root inside a
#    container is not counted against the process limit.
# A containers.conf of our own (CONTAINERS_CONF) says both, for podman run,
# podman build and podman-compose alike, without touching /etc/containers.
DICECUP_CI_STATE=${DICECUP_CI_STATE:-/var/tmp/dicecup-ci}
mkdir -p "$DICECUP_CI_STATE"
export CONTAINERS_CONF=$DICECUP_CI_STATE/containers.conf
cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=4096:4096"]

[engine]
runtime = "runc"
CONF

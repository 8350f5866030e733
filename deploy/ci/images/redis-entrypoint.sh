#!/bin/sh
# As the official redis image: redis-server as the redis user, protected mode
# off (the official image builds it so; without a config file Redis listens on
# every interface, which is what the compose network needs).
set -eu
if [ "${1:-}" = redis-server ]; then
    case " $* " in *" --protected-mode "*) ;; *) set -- "$@" --protected-mode no ;; esac
    if [ "$(id -u)" = 0 ]; then
        exec setpriv --reuid=redis --regid=redis --init-groups "$@"
    fi
fi
exec "$@"

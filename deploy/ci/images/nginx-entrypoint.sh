#!/bin/sh
# The official nginx image's template step (20-envsubst-on-templates.sh):
# every /etc/nginx/templates/NAME.template becomes /etc/nginx/conf.d/NAME with
# the environment's variables substituted, and only those (nginx's own
# $variables stay), then nginx in the foreground.
set -eu
templates=${NGINX_ENVSUBST_TEMPLATE_DIR:-/etc/nginx/templates}
suffix=${NGINX_ENVSUBST_TEMPLATE_SUFFIX:-.template}
output=${NGINX_ENVSUBST_OUTPUT_DIR:-/etc/nginx/conf.d}
filter=${NGINX_ENVSUBST_FILTER:-}
if [ "${1:-}" = nginx ] && [ -d "$templates" ]; then
    defined=$(printf '${%s} ' $(awk "END { for (name in ENVIRON) { print ( name ~ /${filter}/ ) ? name : \"\" } }" </dev/null))
    for template in "$templates"/*"$suffix"; do
        [ -f "$template" ] || continue
        target="$output/$(basename "$template" "$suffix")"
        echo "$0: rendering $template to $target"
        envsubst "$defined" <"$template" >"$target"
    done
fi
exec "$@"

#!/bin/sh
# A picture of an emitted `terrafit shader --lang glsl` file (docs; not part
# of `make check`): three.js r111 (Debian: apt-get install libjs-three)
# displaces a 256 x 256 segment plane in its vertex shader by the file's
# NAME_gradient_at (example.js) and headless Chromium saves a PNG.
#   scripts/shader-demo/screenshot.sh SHADER.glsl OUT.png [NAME]
# NAME defaults to terrain. See screenshot.mjs for the TF_SHADER_DEMO_*
# and TF_SHOT_* variables (window, origin, relief, size). Needs node/npm and
# Chromium; playwright-core goes to $TF_SHADER_DEMO_CACHE (default
# ~/.cache/terrafit-shader-demo), never into the source tree.
set -eu
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 SHADER.glsl OUT.png [NAME]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
three=${THREE_JS:-/usr/share/javascript/three/build/three.module.js}
if [ ! -r "$three" ]; then
    echo "$0: $three is missing (Debian: apt-get install libjs-three)" >&2
    exit 1
fi
cache=${TF_SHADER_DEMO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terrafit-shader-demo}
mkdir -p "$cache"
if [ ! -d "$cache/node_modules/playwright-core" ] || ! cmp -s "$here/package.json" "$cache/package.json"; then
    cp "$here/package.json" "$cache/package.json"
    (cd "$cache" && npm install --no-audit --no-fund --silent)
fi
THREE_JS=$three TF_SHADER_DEMO_MODULES="$cache/node_modules" node "$here/screenshot.mjs" "$@"
echo "wrote $2"

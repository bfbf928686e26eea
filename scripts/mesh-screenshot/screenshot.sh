#!/bin/sh
# The visual check of docs/mesh.md (not part of `make check`): write K x K
# adjacent .glb tiles of a spec with `terrafit mesh --tile`, validate each
# with the Khronos glTF validator, and render them together with three.js in
# headless Chromium, where a seam would show as a crack or a crease.
#   scripts/mesh-screenshot/screenshot.sh TERRAFIT SPEC OUT.png [MESH OPTIONS...]
# K is $TILES (default 2). Needs node/npm and Chromium (Debian: apt-get
# install chromium nodejs npm). The npm packages go to
# $TF_MESH_SCREENSHOT_CACHE (default ~/.cache/terrafit-mesh-screenshot),
# never into the source tree.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 TERRAFIT SPEC OUT.png [terrafit mesh options]" >&2
    exit 2
fi
terrafit=$1 spec=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
cache=${TF_MESH_SCREENSHOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terrafit-mesh-screenshot}
mkdir -p "$cache"
if [ ! -d "$cache/node_modules/three" ] || [ ! -d "$cache/node_modules/playwright-core" ] ||
    [ ! -d "$cache/node_modules/gltf-validator" ]; then
    cp "$here/package.json" "$cache/package.json"
    (cd "$cache" && npm install --no-audit --no-fund --silent)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tiles=${TILES:-2}
models=
ty=0
while [ "$ty" -lt "$tiles" ]; do
    tx=0
    while [ "$tx" -lt "$tiles" ]; do
        "$terrafit" mesh "$spec" -o "$work/tile-$tx-$ty.glb" --tile "$tx,$ty" "$@"
        models="$models $work/tile-$tx-$ty.glb"
        tx=$((tx + 1))
    done
    ty=$((ty + 1))
done
# The official validator: any error fails the check.
for model in $models; do
    node --input-type=module -e '
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const require = createRequire(process.argv[1] + "/node_modules/noop.js");
const validator = require("gltf-validator");
const report = await validator.validateBytes(new Uint8Array(readFileSync(process.argv[2])));
const i = report.issues;
console.log(`${process.argv[2].replace(/.*\//, "")}: gltf-validator ${report.validatorVersion}: ` +
            `${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos`);
for (const m of i.messages) console.log(`  ${m.code}: ${m.message} ${m.pointer || ""}`);
process.exit(i.numErrors > 0 ? 1 : 0);
' "$cache" "$model"
done
# shellcheck disable=SC2086 # the tile paths have no spaces (mktemp -d)
TF_MESH_SCREENSHOT_MODULES="$cache/node_modules" node "$here/screenshot.mjs" "$out" $models
echo "wrote $out"

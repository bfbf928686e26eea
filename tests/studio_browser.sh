#!/bin/sh
# terrafit studio in a real browser: Debian's Chromium driven by
# playwright-core (tests/studio/browser.mjs) through fitting, dragging a
# curve point (the live-update latency is printed), the result and 3D
# views, saving and reloading. Run by `make check`.
# Needs node and chromium; playwright-core is installed by npm into
# $TF_STUDIO_TEST_CACHE (default ~/.cache/terrafit-studio-test), never into
# the source tree. Skips (77) when node or chromium is missing, unless
# TF_REQUIRE_BROWSER_TEST is set (scripts/test-all.sh sets it, so CI cannot
# skip it). TF_STUDIO_SCREENSHOTS=DIR saves the views' screenshots there.
# The live-update latency is printed; TF_STUDIO_MAX_LATENCY_MS=N also makes
# a median above N ms fail (not by default: the test machines are shared,
# and a timing is a measurement, not a check).
set -u
tap_name=studio_browser
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"
. "$TF_SRCDIR/tests/studio/server.sh"

. "$TF_SRCDIR/tests/browser.sh"
cache=${TF_STUDIO_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terrafit-studio-test}
browser_require "$cache" "$TF_SRCDIR/tests/studio/package.json"

# What the CLI writes for the same references: the page's fit must equal it.
"$TERRAFIT" fit "$TF_SRCDIR/samples/layered/layer0.png" "$TF_SRCDIR/samples/layered/layer1.png" \
    -o "$scratch/cli.json" -q

mkdir "$scratch/project"
studio_start "$scratch/project"

TF_STUDIO_TEST_MODULES="$cache/node_modules" CHROMIUM="$chromium" \
    node "$TF_SRCDIR/tests/studio/browser.mjs" "$url" "$scratch/project" "$scratch/cli.json" \
    "$TF_SRCDIR/samples" ${TF_STUDIO_SCREENSHOTS:+"$TF_STUDIO_SCREENSHOTS"} \
    >"$scratch/browser.tap" 2>"$scratch/stderr"
browser_status=$?
relay_tap "$scratch/browser.tap"
check "the browser test ran (status $browser_status)" test $browser_status -le 1
studio_stop

tap_finish

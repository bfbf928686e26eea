# Shared by the browser tests (sourced, not run: tests/studio_browser.sh,
# tests/shader_gpu.sh, tests/shader/selftest.sh): whether node, npm and
# Chromium are here, and playwright-core installed by npm into a cache
# folder outside the source tree. Before sourcing, set tap_name and
# scratch. TF_REQUIRE_BROWSER_TEST (set by scripts/test-all.sh, so CI
# cannot skip) turns every skip into a hard error (exit 99).
chromium=${CHROMIUM:-/usr/bin/chromium}

# browser_present: node, npm and chromium are all here.
browser_present() {
    command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && [ -x "$chromium" ]
}

# npm_cache CACHE PACKAGE_JSON: CACHE/node_modules holds what PACKAGE_JSON
# pins, installing it when it does not (npm's output in $scratch/npm.log,
# relayed as TAP diagnostics when it fails). Status 0 when ready.
npm_cache() {
    mkdir -p "$1" || return 1
    if [ ! -d "$1/node_modules/playwright-core" ] || ! cmp -s "$2" "$1/package.json"; then
        cp "$2" "$1/package.json" || return 1
        if ! (cd "$1" && npm install --no-audit --no-fund --silent) >"$scratch/npm.log" 2>&1; then
            sed 's/^/# /' "$scratch/npm.log"
            return 1
        fi
    fi
}

# browser_skip REASON: skip the whole script (exit 77), or fail it (99)
# under TF_REQUIRE_BROWSER_TEST.
browser_skip() {
    if [ -n "${TF_REQUIRE_BROWSER_TEST:-}" ]; then
        echo "$tap_name: $1 and TF_REQUIRE_BROWSER_TEST is set" >&2
        exit 99
    fi
    echo "1..0 # SKIP $1"
    exit 77
}

# browser_require CACHE PACKAGE_JSON: the browser and playwright-core, or
# skip the script.
browser_require() {
    browser_present || browser_skip "node, npm or $chromium is missing (Debian: apt-get install nodejs npm chromium)"
    npm_cache "$1" "$2" || browser_skip "npm could not install playwright-core (offline?)"
}

#!/bin/sh
# Compares the C runtime (`terrafit sample`) with the independent Python
# reference (tests/oracle/terrafit_ref.py, written from docs/spec.md and
# docs/noise.md only) byte for byte, on every golden spec in tests/data/terrain/
# and every spec under samples/, at a fixed set of ~300 points that includes
# negative and large (up to 1e6) coordinates.
#
# Environment (set by `make check`): TERRAFIT = the built CLI, TF_SRCDIR = the
# source tree. Exit 77 (skip) without /usr/bin/python3.
set -u

PYTHON=/usr/bin/python3
if [ ! -x "$PYTHON" ]; then
    echo "reference: $PYTHON not found, skipping"
    exit 77
fi

srcdir=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
terrafit=${TERRAFIT:-"$srcdir/cli/terrafit"}
ref="$srcdir/tests/oracle/terrafit_ref.py"

if [ ! -x "$terrafit" ]; then
    echo "reference: $terrafit not built" >&2
    exit 99
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tf-reference.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT HUP INT TERM

# The point set: fixed edge cases, then a Park-Miller LCG (products stay below
# 2^46, exact in awk's doubles) producing decimal strings at scales 1 .. 1e6,
# both signs. Every number is printed from integers, so the text is the same
# with any awk; C's strtod and Python's float() both round it correctly.
points="$work/points.txt"
cat > "$points" <<'EOF'
# fixed points
0 0
-0 -0
1 1
-1 -1
0.5 -0.5
1e6 1e6
-1e6 1e6
1000000 -1000000
-1000000 -1000000
999999.999999 -999999.5
123456.789 -654321.125
0.1 0.2
-3.75 1024
2.5e5 -7.5e5
EOF
awk 'BEGIN {
    s = 20240601
    n = 0
    while (n < 286) {
        # scale exponent 0..6: integer part below 10^e
        e = n % 7
        lim = 1; for (k = 0; k < e; k++) lim *= 10
        line = ""
        for (c = 0; c < 2; c++) {
            s = (s * 16807) % 2147483647; ip = s % lim
            s = (s * 16807) % 2147483647; fr = s % 1000000
            s = (s * 16807) % 2147483647; sg = (s % 2) ? "-" : ""
            v = sprintf("%s%d.%06d", sg, ip, fr)
            line = (c == 0) ? v : line " " v
        }
        print line
        n++
    }
}' >> "$points"

specs="$work/specs.txt"
: > "$specs"
for f in "$srcdir"/tests/data/terrain/*.json; do
    [ -f "$f" ] && echo "$f" >> "$specs"
done
if [ -d "$srcdir/samples" ]; then
    find "$srcdir/samples" -name '*.json' -type f | LC_ALL=C sort | while IFS= read -r f; do
        if grep -q '"noiseLayers"' "$f"; then
            echo "$f" >> "$specs"
        fi
    done
fi

passed=0
failed=0
while IFS= read -r spec; do
    name=${spec#"$srcdir"/}
    if ! "$terrafit" sample "$spec" < "$points" > "$work/c.out" 2> "$work/c.err"; then
        echo "not ok - $name: terrafit sample failed:"
        sed 's/^/#   /' "$work/c.err"
        failed=$((failed + 1))
        continue
    fi
    if ! "$PYTHON" "$ref" sample "$spec" < "$points" > "$work/py.out" 2> "$work/py.err"; then
        echo "not ok - $name: terrafit_ref.py sample failed:"
        sed 's/^/#   /' "$work/py.err"
        failed=$((failed + 1))
        continue
    fi
    if cmp -s "$work/c.out" "$work/py.out"; then
        echo "ok - $name ($(wc -l < "$work/c.out" | tr -d ' ') points)"
        passed=$((passed + 1))
    else
        echo "not ok - $name: C and Python differ (point, C, Python):"
        grep -v '^#' "$points" | grep -v '^$' | paste -d ' ' - "$work/c.out" "$work/py.out" |
            awk '$3 != $4 { print "#   " $0; if (++n == 10) exit }'
        failed=$((failed + 1))
    fi
done < "$specs"

echo "reference: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
exit 0

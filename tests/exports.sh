#!/bin/sh
# Pins the installed shared libraries' exports to the public headers: the
# functions declared TF_API in terrafit/runtime.h are exactly what
# libterrafit-runtime.so exports, those of the other terrafit/*.h exactly
# what libterrafit.so exports, and every tf_ symbol libterrafit.so leaves
# undefined is one the runtime exports (a hidden runtime internal would
# fail at load time). Run by `make check` with TF_SRCDIR, TF_BUILDDIR and
# TERRAFIT; skipped (77) without shared libraries or nm.
set -u
tap_name=exports
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

if [ -z "${TF_BUILDDIR:-}" ] || [ ! -f "$TF_BUILDDIR/Makefile" ]; then
    echo "exports: TF_BUILDDIR must name a configured build" >&2
    exit 99
fi
libs=$TF_BUILDDIR/lib/.libs
runtime_so=$libs/libterrafit-runtime.so
full_so=$libs/libterrafit.so
if [ ! -f "$runtime_so" ] || [ ! -f "$full_so" ]; then
    echo "exports: no shared libraries in $libs (static-only build), skipping"
    exit 77
fi
if ! command -v nm >/dev/null 2>&1; then
    echo "exports: nm not found, skipping"
    exit 77
fi

# The names declared TF_API in the given headers (functions and data),
# sorted: comments and preprocessor lines removed, then the identifier just
# before the first "(", "[" or ";" that follows each TF_API.
declared() {
    awk '
        { text = text $0 "\n" }
        END {
            code = ""
            while ((i = index(text, "/*")) > 0) {
                code = code substr(text, 1, i - 1)
                text = substr(text, i + 2)
                j = index(text, "*/")
                if (j == 0) { text = ""; break }
                text = substr(text, j + 2)
            }
            code = code text
            n = split(code, lines, "\n")
            body = ""
            for (k = 1; k <= n; k++)
                if (lines[k] !~ /^[ \t]*#/) body = body " " lines[k]
            while ((i = index(body, "TF_API")) > 0) {
                body = substr(body, i + 6)
                if (!match(body, /[(\[;]/)) break
                p = RSTART
                if (match(substr(body, 1, p - 1), /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) {
                    name = substr(body, RSTART, RLENGTH)
                    gsub(/[ \t]/, "", name)
                    print name
                }
            }
        }' "$@" | LC_ALL=C sort -u
}

# defined LIB / undefined LIB: a shared library's dynamic symbols, sorted.
defined() {
    nm -D --defined-only "$1" | awk 'NF >= 3 { print $3 }' | LC_ALL=C sort -u
}
undefined_tf() {
    nm -D --undefined-only "$1" | awk '$NF ~ /^tf_/ { print $NF }' | LC_ALL=C sort -u
}

# same_list NAME WANT GOT: the two sorted lists are equal; the differences
# go to the TAP diagnostics.
same_list() {
    {
        LC_ALL=C comm -23 "$2" "$3" | sed 's/^/declared, not exported: /'
        LC_ALL=C comm -13 "$2" "$3" | sed 's/^/exported, not declared: /'
    } >"$scratch/stderr"
    check "$1" [ ! -s "$scratch/stderr" ]
}

headers=$TF_SRCDIR/lib/terrafit
declared "$headers/runtime.h" >"$scratch/runtime.declared"
# Every public header but runtime.h (fit.h, image.h, ... terrafit.h).
declared $(ls "$headers"/*.h | grep -v '/runtime\.h$') >"$scratch/full.declared"
defined "$runtime_so" >"$scratch/runtime.exported"
defined "$full_so" >"$scratch/full.exported"
undefined_tf "$full_so" >"$scratch/full.undefined"

: >"$scratch/stderr"
counts="$(line_count "$scratch/runtime.declared") runtime, $(line_count "$scratch/full.declared") full"
check "the headers declare TF_API functions ($counts)" \
    [ -s "$scratch/runtime.declared" -a -s "$scratch/full.declared" ]
LC_ALL=C comm -12 "$scratch/runtime.declared" "$scratch/full.declared" |
    sed 's/^/declared in runtime.h and another header: /' >"$scratch/stderr"
check "no function is declared for both libraries" [ ! -s "$scratch/stderr" ]

same_list "libterrafit-runtime.so exports exactly runtime.h's TF_API functions" \
    "$scratch/runtime.declared" "$scratch/runtime.exported"
same_list "libterrafit.so exports exactly the other headers' TF_API functions" \
    "$scratch/full.declared" "$scratch/full.exported"

LC_ALL=C comm -23 "$scratch/full.undefined" "$scratch/runtime.exported" |
    sed 's/^/libterrafit.so needs a symbol the runtime does not export: /' >"$scratch/stderr"
check "every tf_ symbol libterrafit.so imports is exported by the runtime" \
    [ ! -s "$scratch/stderr" ]
: >"$scratch/stderr"
check "libterrafit-runtime.so imports no tf_ symbol" [ -z "$(undefined_tf "$runtime_so")" ]

tap_finish

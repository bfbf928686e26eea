#!/bin/sh
# The amalgamated runtime (scripts/amalgamate.sh, `make amalgamation`):
# generated from whatever lib/runtime holds, it compiles alone with strict
# flags, links with cJSON and libm only, gives the golden vectors of
# tests/data/terrain bit for bit and the same heights as `terrafit sample`
# on every sample spec. Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=amalgamation
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

cc=${CC:-cc}
strict="-std=c11 -Wall -Wextra -pedantic -Werror -ffp-contract=off -O2"
if ! command -v "$cc" >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then
    echo "amalgamation: needs a C compiler ($cc) and pkg-config" >&2
    exit 99
fi
cjson_cflags=$(pkg-config --cflags libcjson) || exit 99
cjson_libs=$(pkg-config --libs libcjson) || exit 99

out="$scratch/amalgamation"
run sh "$TF_SRCDIR/scripts/amalgamate.sh" "$TF_SRCDIR" "$out"
check "amalgamate.sh succeeds" [ "$status" -eq 0 ]
check "it writes terrafit_runtime.c" [ -s "$out/terrafit_runtime.c" ]
check "it writes terrafit_runtime.h" [ -s "$out/terrafit_runtime.h" ]

# Every runtime source is in, whatever their number.
missing=""
for f in "$TF_SRCDIR"/lib/runtime/*.c; do
    grep -qF "/* ======== runtime/$(basename "$f") ======== */" "$out/terrafit_runtime.c" ||
        missing="$missing $(basename "$f")"
done
if [ -z "$missing" ]; then pass "every lib/runtime/*.c is amalgamated"; else
    fail "missing sources:$missing"; fi
check "no quoted include is left but the pair's header" \
    sh -c "! grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*\"' '$out/terrafit_runtime.c' |
        grep -vF '\"terrafit_runtime.h\"'"
check "the header has no include of the source tree" \
    sh -c "! grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*\"' '$out/terrafit_runtime.h'"

# Compiled alone, in a folder with nothing else: only the pair and cJSON.
run "$cc" $strict $cjson_cflags -c "$out/terrafit_runtime.c" -o "$out/terrafit_runtime.o"
check "terrafit_runtime.c compiles alone with -Wall -Wextra -pedantic -Werror" [ "$status" -eq 0 ]

cat >"$out/golden.c" <<'EOF'
/* Reads "x y h" lines (hex doubles) for a spec and compares
 * tf_terrain_sample bit for bit; with -s prints heights at "x y" points
 * as `terrafit sample` does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit_runtime.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: golden SPEC VECTORS | golden -s SPEC < POINTS\n");
        return 2;
    }
    int sample_mode = strcmp(argv[1], "-s") == 0;
    tf_error err;
    tf_terrain *t = tf_terrain_load(argv[sample_mode ? 2 : 1], &err);
    if (!t) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    FILE *f = sample_mode ? stdin : fopen(argv[2], "r");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    char line[512];
    long count = 0, wrong = 0;
    while (fgets(line, sizeof line, f)) {
        double v[3];
        char *p = line, *end;
        int k, want = sample_mode ? 2 : 3;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        for (k = 0; k < want; k++) {
            v[k] = strtod(p, &end);
            if (end == p)
                break;
            p = end;
        }
        if (k < want) {
            fprintf(stderr, "bad line: %s", line);
            return 1;
        }
        double h = tf_terrain_sample(t, v[0], v[1]);
        if (sample_mode) {
            printf("%.17g\n", h);
        } else if (!(h == v[2] || (isnan(h) && isnan(v[2])))) {
            if (wrong++ < 5)
                fprintf(stderr, "%s: h(%a, %a) = %a, want %a\n", argv[1], v[0], v[1], h, v[2]);
        }
        count++;
    }
    if (!sample_mode) {
        fclose(f);
        printf("%ld vectors, %ld wrong\n", count, wrong);
    }
    tf_terrain_free(t);
    return wrong == 0 && count > 0 ? 0 : 1;
}
EOF
run "$cc" $strict -I"$out" -c "$out/golden.c" -o "$out/golden.o"
check "a program including terrafit_runtime.h compiles" [ "$status" -eq 0 ]
run "$cc" -o "$out/golden" "$out/golden.o" "$out/terrafit_runtime.o" $cjson_libs -lm
check "it links with cJSON and libm only" [ "$status" -eq 0 ]

if [ -x "$out/golden" ]; then
    specs=0
    for spec in "$TF_SRCDIR"/tests/data/terrain/*.json; do
        name=$(basename "$spec" .json)
        run "$out/golden" "$spec" "${spec%.json}.vectors"
        check "golden vectors of $name, bit for bit" [ "$status" -eq 0 ]
        specs=$((specs + 1))
    done
    check "at least 5 golden specs were checked" [ "$specs" -ge 5 ]

    # The same heights as the library (through the CLI) on the samples.
    awk 'BEGIN {
        for (k = 0; k < 300; k++) {
            x = (k * 7919 % 2003) * 1.37 - 1300; y = (k * 104729 % 1009) * -2.11 + 700
            printf "%.17g %.17g\n", x, y
        }
        print "1e6 -1e6"; print "0 0"
    }' >"$scratch/points"
    for spec in $(find "$TF_SRCDIR/samples" -name '*.json' | LC_ALL=C sort); do
        name=${spec#"$TF_SRCDIR"/}
        "$TERRAFIT" sample "$spec" <"$scratch/points" >"$scratch/library.txt" 2>/dev/null || continue
        "$out/golden" -s "$spec" <"$scratch/points" >"$scratch/amalgam.txt" 2>"$scratch/stderr"
        check "$name: the same heights as the library" cmp -s "$scratch/library.txt" \
            "$scratch/amalgam.txt"
    done
fi

# The file-scope name scan on a made-up tree: attributes, before or after
# `static`, are not names; a name on the next line is read there; the same
# name in two files is reported, naming it.
fake="$scratch/fake"
mkdir -p "$fake/lib/terrafit" "$fake/lib/base" "$fake/lib/runtime"
echo 'AC_INIT([terrafit], [0.0.1])' >"$fake/configure.ac"
: >"$fake/lib/terrafit/runtime.h"
: >"$fake/lib/base/base.c"
printf '%s\n' 'static inline __attribute__((always_inline)) void' 'first_pass(void)' '{' '}' \
    >"$fake/lib/runtime/a.c"
printf '%s\n' 'static inline __attribute__((target("avx2"), always_inline)) void' \
    'second_pass(void)' '{' '}' >"$fake/lib/runtime/b.c"
run sh "$TF_SRCDIR/scripts/amalgamate.sh" "$fake" "$scratch/fake-out"
check "attributes and a name on the next line are not taken for a shared name" \
    [ "$status" -eq 0 ]
printf '%s\n' '__attribute__((unused)) static int' 'first_pass(int x)' '{' '    return x;' '}' \
    >"$fake/lib/runtime/c.c"
run sh "$TF_SRCDIR/scripts/amalgamate.sh" "$fake" "$scratch/fake-out"
check "a name two files define is reported" \
    sh -c "[ $status -ne 0 ] && grep -q 'first_pass: .*a.c .*c.c' '$scratch/stderr'"

tap_finish

#!/bin/sh
# The runtime's results do not depend on the optimization level: the
# runtime sources and a small vector-dumping program are compiled at -O0,
# -O2 and -O3 (with -ffp-contract=off, as the build does), and once more
# without the AVX-512 path, and the dumps, on every evaluation path, must
# be byte-identical (NaNs compare as NaN: their sign is unspecified).
set -u
srcdir=$TF_SRCDIR
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-opt.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

if ! pkg-config --exists libcjson 2>/dev/null; then
    echo "1..0 # SKIP libcjson not found by pkg-config"
    exit 0
fi
cjson_cflags=$(pkg-config --cflags libcjson)
cjson_libs=$(pkg-config --libs libcjson)

cat > "$tmp/dump.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "runtime/internal.h"
/* NaN's sign and payload are unspecified (docs/spec.md): one NaN for all. */
static void put(const void *p, size_t size, int is_nan)
{
    static const unsigned char canonical[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
    fwrite(is_nan ? canonical : p, size, 1, stdout);
}
/* Every spec of tests/data/terrain on a small grid (grid, single
 * samples and a batch of points, all as raw bits) at ordinary and huge
 * coordinates. */
int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++) {
        tf_error err;
        tf_terrain *t = tf_terrain_load(argv[a], &err);
        if (!t) { fprintf(stderr, "%s\n", err.message); return 1; }
        const double origins[][2] = {{-37.25, 12.5}, {1e6 + 0.125, -3e5}, {4.4e15, -1e14}};
        for (int o = 0; o < 3; o++) {
            float grid[40 * 7];
            tf_terrain_sample_grid(t, origins[o][0], origins[o][1], 0.73, 40, 7, grid);
            for (int k = 0; k < 40 * 7; k++)
                put(&grid[k], sizeof grid[k], isnan(grid[k]));
            double px[70], py[70], ph[70];
            for (int k = 0; k < 70; k++) {
                px[k] = origins[o][0] + k * 1.37;
                py[k] = origins[o][1] - k * 0.9;
            }
            for (int k = 0; k < 40; k++) {
                double h = tf_terrain_sample(t, px[k], py[k]);
                put(&h, sizeof h, isnan(h));
            }
            tf_terrain_sample_points(t, px, py, 70, ph);
            for (int k = 0; k < 70; k++)
                put(&ph[k], sizeof ph[k], isnan(ph[k]));
        }
        tf_terrain_free(t);
    }
    return 0;
}
C
specs=$(ls "$srcdir"/tests/data/terrain/*.json)
n=0
fail=0
# "noavx512": -O2 built as a compiler without AVX-512 support would build it
# (-DTF_NO_AVX512): its best path is AVX2 and must give the same bits.
for level in 0 2 3 noavx512; do
    case $level in
    noavx512) flags="-O2 -DTF_NO_AVX512" ;;
    *) flags=-O$level ;;
    esac
    if ! $cc -std=c11 $flags -ffp-contract=off -fno-fast-math -I"$srcdir/lib" -I"$TF_BUILDDIR/lib" \
        $cjson_cflags -o "$tmp/dump$level" "$tmp/dump.c" "$srcdir"/lib/base/*.c "$srcdir"/lib/runtime/*.c \
        $cjson_libs -lm 2>"$tmp/cc$level.log"; then
        echo "not ok - compile with $flags"; cat "$tmp/cc$level.log"; exit 1
    fi
done
for path in none auto; do
    for level in 0 2 3; do
        TERRAFIT_SIMD=$path "$tmp/dump$level" $specs > "$tmp/out-$path-$level" || fail=1
    done
    for level in 2 3; do
        n=$((n + 1))
        if cmp -s "$tmp/out-$path-0" "$tmp/out-$path-$level"; then
            echo "ok $n - -O0 and -O$level give the same bits (path $path)"
        else
            echo "not ok $n - -O0 and -O$level differ (path $path)"; fail=1
        fi
    done
done
n=$((n + 1))
if cmp -s "$tmp/out-none-2" "$tmp/out-auto-2"; then
    echo "ok $n - the portable and the default path give the same bits"
else
    echo "not ok $n - the portable and the default path differ"; fail=1
fi
TERRAFIT_SIMD=auto "$tmp/dumpnoavx512" $specs > "$tmp/out-noavx512" || fail=1
n=$((n + 1))
if cmp -s "$tmp/out-none-2" "$tmp/out-noavx512"; then
    echo "ok $n - a build without the AVX-512 path gives the same bits on its best path"
else
    echo "not ok $n - a build without the AVX-512 path differs"; fail=1
fi
echo "1..$n"
exit $fail

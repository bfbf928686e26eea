#!/bin/sh
# Library citizenship after `make install DESTDIR=...`: the headers, man
# pages and pkg-config files are installed; small programs build with
# `pkg-config --cflags --libs` against the staged tree (PKG_CONFIG_SYSROOT_DIR)
# and run; `--static --libs` names every library the static archives need,
# and, when the build has static libraries (configure --enable-static, as
# `make check-static` does), programs link against the archives with it.
# Run by `make check` with TF_BUILDDIR, TF_SRCDIR and TERRAFIT.
set -u
tap_name=pkgconfig
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

builddir=${TF_BUILDDIR:-}
if [ -z "$builddir" ] || [ ! -f "$builddir/Makefile" ] || ! command -v pkg-config >/dev/null 2>&1; then
    echo "pkgconfig: needs TF_BUILDDIR (a configured build) and pkg-config" >&2
    exit 99
fi
# The build's own compiler and flags (sanitizer builds link with them).
make_var() {
    sed -n "s/^$1 = //p" "$builddir/Makefile" | head -n 1
}
cc=$(make_var CC)
cflags=$(make_var CFLAGS)
ldflags=$(make_var LDFLAGS)
prefix=$(make_var prefix)
make_cmd=${MAKE:-make}

# The install below relinks the libraries in the build tree, so this test
# must run after every other one (Makefile.am's rule for its log).
nested_make() { # a nested make of its own: not the calling make's jobs or flags
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$make_cmd" -s -C "$builddir" "$@"
}
tests=$(printf 'tf-print-tests:\n\t@echo $(TESTS)\n' | nested_make -f Makefile -f - tf-print-tests)
after=$(nested_make -pnq tests/pkgconfig.sh.log 2>/dev/null | sed -n 's|^tests/pkgconfig\.sh\.log: ||p')
missing=""
for t in $tests; do
    [ "$t" = tests/pkgconfig.sh ] && continue
    case " $after " in *" $t.log "*) ;; *) missing="$missing $t" ;; esac
done
check "runs after every other test (${missing:-none missing})" [ -n "$tests" -a -z "$missing" ]

root="$scratch/root"
nested_make install DESTDIR="$root" \
    >"$scratch/stdout" 2>"$scratch/stderr"
status=$?
check "make install DESTDIR=... succeeds" [ "$status" -eq 0 ]
[ "$status" -eq 0 ] || { tap_finish; exit 1; }

pcdir=$(ls -d "$root$prefix"/lib*/pkgconfig 2>/dev/null | head -n 1)
check "terrafit.pc and terrafit-runtime.pc are installed" \
    [ -f "$pcdir/terrafit.pc" -a -f "$pcdir/terrafit-runtime.pc" ]
for h in runtime terrafit image stats fit frequency metrics; do
    check "terrafit/$h.h is installed" [ -f "$root$prefix/include/terrafit/$h.h" ]
done
commands=$("$TERRAFIT" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
for page in terrafit $commands; do
    [ "$page" = terrafit ] && file=terrafit.1 || file=terrafit-$page.1
    check "man page $file is installed" [ -s "$root$prefix/share/man/man1/$file" ]
done

PKG_CONFIG_PATH=$pcdir
PKG_CONFIG_SYSROOT_DIR=$root
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
check "pkg-config validates terrafit-runtime.pc" pkg-config --validate terrafit-runtime
check "pkg-config validates terrafit.pc" pkg-config --validate terrafit
check "the version is the package's" \
    [ "$(pkg-config --modversion terrafit)" = "$("$TERRAFIT" --version | awk '{ print $2 }')" ]

# contains_all TEXT WORD...: every WORD is a flag in TEXT.
contains_all() {
    text=" $1 "
    shift
    for w in "$@"; do
        case "$text" in *" $w "*) ;; *) echo "missing $w in:$text" >&2; return 1 ;; esac
    done
}
runtime_static=$(pkg-config --static --libs terrafit-runtime)
full_static=$(pkg-config --static --libs terrafit)
check "--static --libs terrafit-runtime: the runtime, cJSON, libm" \
    contains_all "$runtime_static" -lterrafit-runtime -lcjson -lm
check "--static --libs terrafit: every library the archives need" \
    contains_all "$full_static" -lterrafit -lterrafit-runtime -lcjson -lpng16 -lz -lfftw3 -lm \
    -lpthread
check "--libs terrafit (shared) names the two libraries, not their dependencies" \
    [ "$(pkg-config --libs terrafit | tr ' ' '\n' | grep -c -e -lpng16 -e -lfftw3 -e -lcjson)" -eq 0 ]

cat >"$scratch/runtime_demo.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <terrafit/runtime.h>
int main(void)
{
    static const char spec[] = "{\"format\": \"terrafit-terrain\", \"version\": 1,"
                               " \"noiseLayers\": [{\"baseNoise\": {\"frequency\": 0.01},"
                               " \"rd\": {\"points\": [{\"x\": 0, \"y\": 0}, {\"x\": 1, \"y\": 1}]}}]}";
    tf_error err;
    tf_terrain *t = tf_terrain_parse(spec, strlen(spec), &err);
    if (!t) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    printf("%.17g\n", tf_terrain_sample(t, 12.5, -3.0));
    tf_terrain_free(t);
    return 0;
}
EOF
cat >"$scratch/full_demo.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <terrafit/terrafit.h>
int main(int argc, char **argv)
{
    float h[16];
    for (int k = 0; k < 16; k++)
        h[k] = (float)k / 15.0f;
    tf_erosion_params p;
    tf_erosion_params_default(&p, TF_EROSION_THERMAL, 4, 4);
    p.iterations = 2;
    tf_error err;
    if (argc != 2 || tf_erode(h, 4, 4, &p, NULL, NULL, &err) != 0 ||
        tf_heightmap_write(argv[1], TF_HEIGHTMAP_PNG16, h, 4, 4, 0.0, 1.0, &err) != 0) {
        fprintf(stderr, "%s\n", argc == 2 ? err.message : "usage: full_demo OUT.png");
        return 1;
    }
    printf("%u threads\n", tf_cpu_count());
    return 0;
}
EOF
printf '%s\n' '{"format": "terrafit-terrain", "version": 1,' \
    '"noiseLayers": [{"baseNoise": {"frequency": 0.01},' \
    '"rd": {"points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]}}]}' >"$scratch/demo.json"
expected=$(printf '12.5 -3\n' | "$TERRAFIT" sample "$scratch/demo.json")
libdir=$(pkg-config --variable=libdir terrafit)

# ran_and COMMAND...: the last `run` exited 0 and COMMAND succeeds.
ran_and() {
    [ "$status" -eq 0 ] && "$@"
}

# build NAME MODULE SUFFIX [--static]: compile NAME.c and link NAME$SUFFIX
# with pkg-config's flags.
build() {
    # shellcheck disable=SC2046
    "$cc" -std=c11 $cflags $(pkg-config --cflags "$2") -c "$scratch/$1.c" -o "$scratch/$1.o" \
        2>"$scratch/stderr" &&
        "$cc" $ldflags -o "$scratch/$1$3" "$scratch/$1.o" $(pkg-config $4 --libs "$2") \
            2>>"$scratch/stderr"
}

shared=no
if ls "$libdir"/libterrafit-runtime.so* >/dev/null 2>&1; then
    shared=yes
    check "a runtime program builds with pkg-config (shared)" \
        build runtime_demo terrafit-runtime "" ""
    run env LD_LIBRARY_PATH="$libdir" "$scratch/runtime_demo"
    check "it runs and samples as terrafit does" \
        [ "$status" -eq 0 -a "$(cat "$scratch/stdout")" = "$expected" ]
    check "a full-library program builds with pkg-config (shared)" build full_demo terrafit "" ""
    run env LD_LIBRARY_PATH="$libdir" "$scratch/full_demo" "$scratch/shared.png"
    check "it runs and writes a PNG" ran_and is_png "$scratch/shared.png"
else
    echo "# shared libraries not built (configure --disable-shared)"
fi

# Static: link against the archives only (the shared objects set aside).
if [ -f "$libdir/libterrafit.a" ] && [ -f "$libdir/libterrafit-runtime.a" ]; then
    mkdir "$scratch/shared-set-aside"
    mv "$libdir"/libterrafit*.so* "$scratch/shared-set-aside/" 2>/dev/null
    check "a runtime program links statically with --static --libs" \
        build runtime_demo terrafit-runtime -static-linked --static
    run "$scratch/runtime_demo-static-linked"
    check "it runs and samples as terrafit does" \
        [ "$status" -eq 0 -a "$(cat "$scratch/stdout")" = "$expected" ]
    check "it needs no terrafit shared library" \
        sh -c "! (ldd '$scratch/runtime_demo-static-linked' 2>/dev/null | grep -q libterrafit)"
    check "a full-library program links statically with --static --libs" \
        build full_demo terrafit -static-linked --static
    run "$scratch/full_demo-static-linked" "$scratch/static.png"
    check "it runs and writes a PNG" ran_and is_png "$scratch/static.png"
    if [ "$shared" = yes ]; then
        check "the same PNG as the shared build" same_file "$scratch/shared.png" \
            "$scratch/static.png"
    fi
    # Without Libs.private / Requires.private the link fails: the check above
    # depends on them.
    check "without --static the archives do not link" sh -c \
        "! '$cc' $ldflags -o '$scratch/no' '$scratch/full_demo.o' $(pkg-config --libs terrafit) 2>/dev/null"
else
    echo "# static archives not built (configure --enable-static, or 'make check-static')"
    check "shared libraries were installed at least" [ "$shared" = yes ]
fi

tap_finish

#!/bin/sh
# The runtime as one source pair a game can drop into its tree:
# terrafit_runtime.h (lib/terrafit/runtime.h) and terrafit_runtime.c (every
# lib/base/*.c and lib/runtime/*.c with the private headers inlined once).
# Needs cJSON + libm.
#
#   scripts/amalgamate.sh [SRCDIR [OUTDIR]]    (`make amalgamation` runs it)
#
# Every lib/base/*.c and lib/runtime/*.c is taken, in name order, so new runtime sources are
# included without editing this script. Quoted includes are inlined (each
# header once); system includes stay; macros a .c file defines are #undef'd
# after it, so two files may use the same macro name. File-scope static
# names must differ between runtime sources: duplicates are reported here.
set -eu

srcdir=${1:-$(cd "$(dirname "$0")/.." && pwd)}
outdir=${2:-.}
runtime_h="$srcdir/lib/terrafit/runtime.h"
[ -f "$runtime_h" ] || { echo "amalgamate.sh: $runtime_h not found" >&2; exit 1; }
mkdir -p "$outdir"

sources="$(ls "$srcdir"/lib/base/*.c | LC_ALL=C sort) $(ls "$srcdir"/lib/runtime/*.c | LC_ALL=C sort)"
[ -n "$sources" ] || { echo "amalgamate.sh: no sources in $srcdir/lib/runtime" >&2; exit 1; }
# The version configure puts in terrafit/version.h: AC_INIT's second argument.
version=$(sed -n 's/^AC_INIT(\[terrafit\], \[\([^]]*\)\].*/\1/p' "$srcdir/configure.ac")
[ -n "$version" ] || { echo "amalgamate.sh: no version in $srcdir/configure.ac" >&2; exit 1; }

# File-scope names that would collide once the files share one translation
# unit: static functions and objects, typedef names, enum tags.
# GCC attributes (their parentheses may nest) are dropped first, before or
# after `static`, and a declaration whose name is on the next line, as in
# `__attribute__((always_inline)) static inline void` then `name(...)`,
# takes it from there.
dups=$(for f in $sources; do
    awk '
        function drop_attributes(s,    i, j, depth, c) {
            while ((i = index(s, "__attribute__")) > 0) {
                j = i + length("__attribute__"); depth = 0
                while (j <= length(s)) {
                    c = substr(s, j, 1); j++
                    if (c == "(") depth++
                    else if (c == ")" && --depth == 0) break
                }
                s = substr(s, 1, i - 1) substr(s, j)
            }
            return s
        }
        /^(static|__attribute__)/ {
            line = drop_attributes($0); sub(/^[ \t]+/, "", line)
            if (line !~ /^static /) next
            if (line !~ /[=;\[(]/ && (getline more) > 0)
                line = line " " more
            sub(/[=;\[(].*$/, "", line); n = split(line, w, /[ *]+/)
            if (w[n] != "") print w[n]
        }
        /^typedef / && /;[ \t]*$/ { line = $0; sub(/;[ \t]*$/, "", line); n = split(line, w, /[ *]+/); print w[n] }
        /^} [A-Za-z_][A-Za-z_0-9]*;/ { line = $2; sub(/;.*/, "", line); print line }
    ' "$f" | LC_ALL=C sort -u | sed "s|\$| $f|"
done | LC_ALL=C sort | awk '
    $1 == name { files = files " " $2; count++; next }
    { if (count > 1) print "  " name ":" files; name = $1; files = " " $2; count = 1 }
    END { if (count > 1) print "  " name ":" files }')
if [ -n "$dups" ]; then
    echo "amalgamate.sh: file-scope names defined in more than one lib/runtime/*.c:" >&2
    echo "$dups" >&2
    echo "rename them (they would collide in terrafit_runtime.c)" >&2
    exit 1
fi

# inline FILE...: the files with quoted includes resolved against the
# including file's folder and lib/, each header inlined once;
# terrafit/runtime.h becomes the amalgamated header.
inline() {
    awk -v lib="$srcdir/lib" -v public="$runtime_h" '
        function exists(p,   line, r) {
            r = (getline line < p); if (r >= 0) close(p); return r >= 0
        }
        function resolve(name, from,   dir, p) {
            dir = from; sub(/\/[^\/]*$/, "", dir)
            p = dir "/" name; if (exists(p)) return p
            p = lib "/" name; if (exists(p)) return p
            return ""
        }
        function emit(path,   line, name, target, defs, n, k) {
            n = 0
            while ((getline line < path) > 0) {
                if (line ~ /^[ \t]*#[ \t]*include[ \t]*"/) {
                    name = line; sub(/^[^"]*"/, "", name); sub(/".*$/, "", name)
                    target = resolve(name, path)
                    if (target == "") { print "amalgamate.sh: " path ": cannot find \"" name "\"" > "/dev/stderr"; failed = 1; continue }
                    if (target == public || target ~ /\/terrafit\/runtime\.h$/) {
                        if (!seen["public"]++) print "#include \"terrafit_runtime.h\""
                        continue
                    }
                    if (seen[target]++) continue
                    print "/* ---- " substr(target, length(lib) + 2) " */"
                    emit(target)
                    print "/* ---- (end of " substr(target, length(lib) + 2) ") */"
                    continue
                }
                print line
                if (path ~ /\.c$/ && line ~ /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_]/) {
                    name = line; sub(/^[ \t]*#[ \t]*define[ \t]+/, "", name); sub(/[^A-Za-z_0-9].*$/, "", name)
                    defs[++n] = name
                }
            }
            close(path)
            for (k = 1; k <= n; k++) print "#undef " defs[k]
        }
        BEGIN {
            seen["public"] = 1 # included at the top of the file
            for (i = 1; i < ARGC; i++) {
                print ""
                print "/* ======== " substr(ARGV[i], length(lib) + 2) " ======== */"
                emit(ARGV[i])
            }
            exit failed
        }
    ' "$@"
}

tmp_h="$outdir/terrafit_runtime.h.tmp$$"
tmp_c="$outdir/terrafit_runtime.c.tmp$$"
trap 'rm -f "$tmp_h" "$tmp_c"' EXIT

{
    echo "/*"
    echo " * terrafit runtime $version, amalgamated: evaluate terrafit terrain specs"
    echo " * (JSON) at any point. Generated by scripts/amalgamate.sh from"
    echo " * lib/terrafit/runtime.h; do not edit. Pair: terrafit_runtime.c."
    echo " */"
    sed "s|^#include <terrafit/version.h>.*|#define TF_VERSION_STRING \"$version\"|" "$runtime_h"
} >"$tmp_h"

{
    echo "/*"
    echo " * terrafit runtime $version, amalgamated: every runtime source in one"
    echo " * file, generated by scripts/amalgamate.sh; do not edit. Compile it as C11"
    echo " * with -ffp-contract=off (and no -ffast-math) for the library's exact"
    echo " * results, beside terrafit_runtime.h; link cJSON and libm:"
    echo " *     cc -std=c11 -ffp-contract=off -c terrafit_runtime.c \$(pkg-config --cflags libcjson)"
    echo " *     cc game.o terrafit_runtime.o \$(pkg-config --libs libcjson) -lm"
    echo " * Sources:"
    for f in $sources; do echo " *   ${f#"$srcdir"/}"; done
    echo " */"
    echo "#include \"terrafit_runtime.h\""
    inline $sources
} >"$tmp_c"

mv "$tmp_h" "$outdir/terrafit_runtime.h"
mv "$tmp_c" "$outdir/terrafit_runtime.c"
trap - EXIT
echo "amalgamate.sh: wrote $outdir/terrafit_runtime.c ($(echo $sources | wc -w) sources) and $outdir/terrafit_runtime.h"

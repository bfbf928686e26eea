#!/bin/sh
# The man pages (docs/man) are those scripts/make-man.sh makes from the
# built tool's --help texts: one per command of `terrafit --help`, none
# stale, and each formats without groff warnings. After changing a help
# text, run scripts/make-man.sh BUILD/cli/terrafit and commit docs/man.
set -u
tap_name=man
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

run sh "$TF_SRCDIR/scripts/make-man.sh" "$TERRAFIT" "$scratch/man"
check "make-man.sh runs" [ "$status" -eq 0 ]
for page in "$scratch"/man/*.1; do
    name=$(basename "$page")
    if cmp -s "$page" "$TF_SRCDIR/docs/man/$name"; then
        pass "docs/man/$name matches --help"
    else
        diff "$TF_SRCDIR/docs/man/$name" "$page" >"$scratch/stderr" 2>&1
        fail "docs/man/$name matches --help (run scripts/make-man.sh and commit docs/man)"
    fi
done
# Installed by `make install`: each page is listed in dist_man1_MANS.
listed=$(sed -n '/^dist_man1_MANS *=/,/[^\\]$/p' "$TF_SRCDIR/Makefile.am")
for page in "$scratch"/man/*.1; do
    name=$(basename "$page")
    case "$listed" in
    *"docs/man/$name"*) pass "docs/man/$name is installed (dist_man1_MANS)" ;;
    *) fail "docs/man/$name is installed (add it to dist_man1_MANS in Makefile.am)" ;;
    esac
done
for page in "$TF_SRCDIR"/docs/man/*.1; do
    name=$(basename "$page")
    check "docs/man/$name belongs to a command" [ -f "$scratch/man/$name" ]
    if command -v groff >/dev/null 2>&1; then
        groff -man -ww -z "$page" >"$scratch/stderr" 2>&1
        check "docs/man/$name formats without warnings" [ ! -s "$scratch/stderr" ]
    fi
done
tap_finish

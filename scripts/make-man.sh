#!/bin/sh
# Regenerates the man pages docs/man/terrafit.1 and terrafit-COMMAND.1 from
# `terrafit --help` and `terrafit COMMAND --help`, so they say exactly what
# the tool says. Run it after changing any help text, and commit the pages:
# the build installs them as they are, without running this script.
#
#   scripts/make-man.sh [TERRAFIT [OUTDIR]]      (defaults: _build/cli/terrafit, docs/man)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
terrafit=${1:-$top/_build/cli/terrafit}
outdir=${2:-$top/docs/man}
[ -x "$terrafit" ] || { echo "make-man.sh: $terrafit is not an executable terrafit" >&2; exit 1; }
mkdir -p "$outdir"

version=$("$terrafit" --version | awk '{ print $2 }')
[ -n "$version" ] || { echo "make-man.sh: '$terrafit --version' printed no version" >&2; exit 1; }
# The tool's help, read once: a run that fails stops here, loudly, instead
# of leaving a summary empty in a page.
main_help=$("$terrafit" --help) || { echo "make-man.sh: '$terrafit --help' failed" >&2; exit 1; }
# The commands and their one-line summaries, from the tool's own table.
commands=$(printf '%s\n' "$main_help" | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ -n "$commands" ] || { echo "make-man.sh: no commands in 'terrafit --help'" >&2; exit 1; }

# to_man NAME SECTION-TITLE SUMMARY SEE-ALSO < help text: the page on stdout.
to_man() {
    awk -v name="$1" -v version="$version" -v summary="$2" -v see_also="$3" '
        # roff escapes: backslash, hyphens as minus signs, a leading . or '"'"'
        function esc(s) {
            gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s)
            if (s ~ /^[.'"'"']/) s = "\\&" s
            return s
        }
        # Options bold, their argument names italic: "-o, --output OUT".
        function term(s,   n, w, k, out, word) {
            n = split(s, w, / /); out = ""
            for (k = 1; k <= n; k++) {
                word = w[k]
                if (word ~ /^-/) word = "\\fB" esc(word) "\\fR"
                else if (word != "") word = "\\fI" esc(word) "\\fR"
                out = out (k > 1 ? " " : "") word
            }
            return out
        }
        function flush_item() {
            if (item_term != "") { print ".TP"; print item_term; print esc(item_text) }
            item_term = ""; item_text = ""
        }
        function end_block() {
            flush_item()
            if (verbatim) { print ".fi"; print ".RE"; verbatim = 0 }
        }
        BEGIN {
            upper = toupper(name)
            printf ".TH %s 1 \"\" \"terrafit %s\" \"User Commands\"\n", esc(upper), version
            print ".SH NAME"
            print esc(name) " \\- " esc(summary)
            state = "synopsis"
        }
        state == "synopsis" && /^Usage: / { print ".SH SYNOPSIS"; print ".nf"; sub(/^Usage: +/, ""); print esc($0); next }
        state == "synopsis" && /^        *terrafit / { sub(/^ +/, ""); print esc($0); next }
        state == "synopsis" { print ".fi"; print ".SH DESCRIPTION"; state = "body" }
        /^$/ { end_block(); print ".PP"; next }
        # A heading line: "Options:", "Styles:" (a word or two and a colon)
        /^[A-Z][A-Za-z ]*:$/ {
            end_block(); h = $0; sub(/:$/, "", h)
            print (h == "Options" ? ".SH OPTIONS" : ".SS " esc(h)); next
        }
        # "  TERM    description": an item of a list (options, styles, ...)
        /^  +[^ ]/ && (match($0, /[^ ]  +[^ ]/) || /^  +--?[A-Za-z]/) {
            indent = match($0, /[^ ]/) - 1
            body = substr($0, indent + 1)
            # continuation of the current item: indented past its term
            if (item_term != "" && indent >= item_col) { item_text = item_text " " body; next }
            if (verbatim) { print esc(body); next }
            flush_item()
            if (match(body, /  +/)) {
                t = substr(body, 1, RSTART - 1); d = substr(body, RSTART + RLENGTH)
                item_col = indent + RSTART + RLENGTH - 1
            } else if (match(body, /^(-[A-Za-z0-9], )?--?[A-Za-z0-9-]+( [A-Z][A-Za-z0-9._|,-]*)? /)) {
                t = substr(body, 1, RLENGTH - 1); d = substr(body, RLENGTH + 1)
                item_col = indent + RLENGTH
            } else { t = body; d = ""; item_col = indent + length(body) }
            item_term = term(t); item_text = d
            next
        }
        # other indented lines: an example, kept as it is
        /^  +[^ ]/ {
            if (item_term != "" && match($0, /[^ ]/) - 1 >= item_col) { sub(/^ +/, ""); item_text = item_text " " $0; next }
            flush_item()
            if (!verbatim) { print ".RS"; print ".nf"; verbatim = 1 }
            sub(/^  /, ""); print esc($0); next
        }
        { end_block(); print esc($0) }
        END {
            end_block()
            print ".SH EXIT STATUS"
            print "0 on success, 1 on a failure (bad input, I/O, a limit), 2 on a usage error."
            print ".SH SEE ALSO"
            print see_also
        }
    '
}

summary_of() {
    printf '%s\n' "$main_help" | awk -v c="$1" '/^Commands:/ { on = 1; next } on && $1 == c {
        $1 = ""; sub(/^ +/, ""); print; exit }'
}

see_main=""
for c in $commands; do
    see_main="$see_main${see_main:+,
}.BR terrafit\\-$c (1)"
done

tmp="$outdir/.make-man.$$"
trap 'rm -f "$tmp"' EXIT
printf '%s\n' "$main_help" | sed '/^Commands:$/,/^$/d' | to_man terrafit "fit, render and evaluate procedural terrain specs" \
    "$see_main
.PP
The documents under docs/ in the source: spec.md, fitting.md, metrics.md, erosion.md." >"$tmp"
# The command list as a list of items, since the table was cut above.
{
    sed -n '1,/^\.SH DESCRIPTION/p' "$tmp"
    sed -n '/^\.SH DESCRIPTION/,$p' "$tmp" | sed '1d' | sed -n '1,/^\.SH EXIT STATUS/p' | sed '$d'
    echo ".SH COMMANDS"
    for c in $commands; do
        printf '.TP\n\\fB%s\\fR\n%s; see \\fBterrafit\\-%s\\fR(1).\n' "$c" \
            "$(summary_of "$c" | sed 's/\\/\\e/g; s/-/\\-/g')" "$c"
    done
    sed -n '/^\.SH EXIT STATUS/,$p' "$tmp"
} >"$outdir/terrafit.1"
for c in $commands; do
    if ! "$terrafit" "$c" --help >"$tmp" 2>&1 || [ ! -s "$tmp" ]; then
        echo "make-man.sh: 'terrafit $c --help' failed: $(head -n 1 "$tmp")" >&2
        exit 1
    fi
    to_man "terrafit-$c" "$(summary_of "$c")" ".BR terrafit (1)" <"$tmp" >"$outdir/terrafit-$c.1"
done
echo "make-man.sh: wrote $(echo $commands | wc -w) command pages and terrafit.1 in $outdir"

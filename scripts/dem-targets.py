#!/usr/bin/python3
"""Which fidelity targets each fit of a scripts/dem-figures.sh table meets.

  scripts/dem-figures.sh TERRAFIT DEM_DIR | /usr/bin/python3 scripts/dem-targets.py
  /usr/bin/python3 scripts/dem-targets.py TABLE.md

Reads the markdown table dem-figures.sh prints and, for every auto-layered
row (`auto ...`; the `--layers 1` rows are the thesis's method, not
judged), lists the targets it misses against its DEM's reference row
(docs/fitting.md, section 12, "Figures"): histogram chi-square <= 0.03,
spectrum RMS <= 0.9, |delta beta| <= 0.3, slope chi-square <= 0.10, slope
rate within x1.5 of the reference's, |delta box dimension| <= 0.15 (where
both are defined) and depression share <= max(2 ref, ref + 0.06). It also
says whether the roughness~elevation and slope~elevation correlations have
the reference's sign (not a target of the count; "sign" is judged only
where the reference's |rho| is at least 0.05, as printed). The figures
are judged as the table prints them (beta to two decimals), so a figure
on the edge of its target may count differently from the unrounded one.
The last lines count, per kind of auto row, the DEMs that meet every
target, and those of them that also keep the signs of both correlations.
Exit status 1 when the table has no reference row or no auto row, or a
row of the wrong width.
"""
import sys

HIST, SPECTRUM, BETA, SLOPE, RATE, BOX = 0.03, 0.9, 0.3, 0.10, 1.5, 0.15
SIGN_MIN = 0.05
COLUMNS = ("DEM", "fit", "hist", "spectrum", "beta", "slope", "rate", "box", "depressions",
           "channels", "flow", "pits", "rough", "steep")


def number(text):
    """A table cell as a float; None for a dash or n/a."""
    text = text.strip().replace("\u2212", "-")
    if text in ("\u2014", "-", "n/a", ""):
        return None
    return float(text)


def read(lines):
    rows, refs = [], {}
    for k, line in enumerate(lines, 1):
        line = line.strip()
        if not line.startswith("|") or line.startswith("| DEM") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < len(COLUMNS):
            raise ValueError("line %d: %d cells, not %d or more" % (k, len(cells), len(COLUMNS)))
        row = {"DEM": cells[0], "fit": cells[1]}
        try:
            for name, cell in zip(COLUMNS[2:], cells[2:len(COLUMNS)]):
                row[name] = number(cell)
        except ValueError:
            raise ValueError("line %d: a cell that is not a number" % k)
        if row["fit"] == "reference":
            refs[row["DEM"]] = row
        elif row["fit"].startswith("auto"):
            rows.append(row)
    return rows, refs


def misses(row, ref):
    out = []
    h, s, b, sl, lam = row["hist"], row["spectrum"], row["beta"], row["slope"], row["rate"]
    if h is not None and h > HIST:
        out.append("hist %.4f" % h)
    if s is not None and s > SPECTRUM:
        out.append("spectrum %.3f" % s)
    if b is not None and ref["beta"] is not None and abs(b - ref["beta"]) > BETA + 1e-9:
        out.append("\u0394\u03b2 %.2f" % abs(b - ref["beta"]))
    if sl is not None and sl > SLOPE:
        out.append("slope %.3f" % sl)
    if lam and ref["rate"] and not (ref["rate"] / RATE <= lam <= ref["rate"] * RATE):
        out.append("rate x%.2f" % (ref["rate"] / lam))
    if row["box"] is not None and ref["box"] is not None and \
            abs(row["box"] - ref["box"]) > BOX + 1e-9:
        out.append("\u0394box %.3f" % abs(row["box"] - ref["box"]))
    d, rd = row["depressions"], ref["depressions"]
    if d is not None and rd is not None:
        target = max(2 * rd, rd + 0.06)
        if d > target + 1e-9:
            out.append("depressions %.3f (target %.3f)" % (d, target))
    return out


def signs(row, ref):
    out = []
    for name, label in (("rough", "rough~elev"), ("steep", "slope~elev")):
        a, b = ref[name], row[name]
        if a is None or b is None or abs(a) < SIGN_MIN:
            continue
        if (a > 0) != (b > 0):
            out.append("%s %+.2f (ref %+.2f)" % (label, b, a))
    return out


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    if len(argv) > 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        if len(argv) == 2:
            with open(argv[1], encoding="utf-8") as f:
                lines = f.readlines()
        else:
            lines = sys.stdin.readlines()
        rows, refs = read(lines)
    except (OSError, ValueError) as e:
        sys.stderr.write("dem-targets.py: %s\n" % e)
        return 1
    if not rows or not refs:
        sys.stderr.write("dem-targets.py: no %s row in the table\n"
                         % ("reference" if not refs else "auto"))
        return 1
    for row in rows:  # checked before any line is printed
        if row["DEM"] not in refs:
            sys.stderr.write("dem-targets.py: %s has no reference row\n" % row["DEM"])
            return 1
    count = {}  # per kind of auto row: [DEMs meeting every target, DEMs]
    print("| DEM | fit | targets missed | correlation of the wrong sign |")
    print("|---|---|---|---|")
    for row in rows:
        ref = refs[row["DEM"]]
        m, s = misses(row, ref), signs(row, ref)
        print("| %s | %s | %s | %s |" % (row["DEM"], row["fit"], "; ".join(m) or "none",
                                        "; ".join(s) or "none"))
        c = count.setdefault(row["fit"], [0, 0, 0])
        c[0] += not m
        c[1] += 1
        c[2] += not m and not s
    print()
    for fit, (met, seen, signed) in count.items():
        print("%s: %d of %d DEMs meet every target" % (fit, met, seen))
        print("%s: %d of %d DEMs meet every target and keep the sign of both correlations"
              % (fit, signed, seen))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""Check schemas/terrain.schema.json against the spec corpora: every
tests/valid/*.json, every golden spec tests/data/terrain/*.json and every
terrain spec under samples/ must be accepted;
every tests/invalid/<case>/input.json must be rejected, unless the case holds
a `schema-valid` file (a rule JSON Schema cannot express), when it must be
accepted. Text that is not strict JSON (syntax errors, NaN/Infinity,
numbers that overflow to infinity, duplicate member names) counts as rejected.

Usage: /usr/bin/python3 tests/schema_validate.py [SRCDIR]
Needs python3-jsonschema (Draft7Validator). Exit status 1 on any failure.
"""
import glob
import json
import math
import os
import sys

from jsonschema import Draft7Validator
from jsonschema.exceptions import SchemaError, best_match


class NotParseable(ValueError):
    """The text is not strict JSON, as the loader (cJSON plus its checks) reads it."""


def reject_constant(name):
    raise NotParseable(f"{name} is not JSON")


def finite_float(text):
    value = float(text)
    if not math.isfinite(value):  # Python reads 1e999 as inf; the loader refuses it
        raise NotParseable(f"number {text} is not finite")
    return value


def unique_members(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise NotParseable(f'duplicate member "{key}"')
        seen.add(key)
    return dict(pairs)


def load_strict(path):
    """The parsed document, or raise NotParseable with the reason."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        return json.loads(text, parse_constant=reject_constant, parse_float=finite_float,
                          object_pairs_hook=unique_members)
    except NotParseable:
        raise
    except (ValueError, RecursionError) as e:  # JSONDecodeError, UnicodeDecodeError
        raise NotParseable(str(e)) from None


def json_path(error):
    """The loader's spelling of a schema error's location: $.noiseLayers[1].rd."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)


def describe(error):
    message = error.message if len(error.message) <= 100 else error.message[:97] + "..."
    return f"{json_path(error)}: {message}"


def first_error(validator, doc):
    """A one-line reason the schema rejects doc, or None if it accepts it."""
    error = best_match(validator.iter_errors(doc))
    return describe(error) if error is not None else None


def on_path(a, b):
    """Whether one JSON path contains the other ($.x[1] and $.x[1].y do; $.x[1] and $.x[10] not)."""
    short, long = sorted((a, b), key=len)
    return long.startswith(short) and (len(long) == len(short) or long[len(short)] in ".[")


def stray_error(validator, doc, expected_path):
    """A schema error away from the path the case's `error` names (the input
    has a second problem, so it does not test what its name says), or None."""
    for error in validator.iter_errors(doc):
        if not on_path(json_path(error), expected_path):
            return describe(error)
    return None


class Report:
    def __init__(self, srcdir):
        self.srcdir = srcdir
        self.passed = 0
        self.failed = 0

    def result(self, path, ok, reason):
        rel = os.path.relpath(path, self.srcdir)
        if ok:
            self.passed += 1
            print(f"ok   {rel}: {reason}")
        else:
            self.failed += 1
            print(f"FAIL {rel}: {reason}")


def check_must_accept(report, validator, path, doc=None):
    if doc is None:
        try:
            doc = load_strict(path)
        except NotParseable as e:
            report.result(path, False, f"not parseable: {e}")
            return
    error = first_error(validator, doc)
    if error:
        report.result(path, False, f"rejected, expected valid: {error}")
    else:
        report.result(path, True, "accepted")


def read_error_file(case_dir):
    """(expected message, None), or (None, why the case's `error` file is malformed)."""
    try:
        with open(os.path.join(case_dir, "error"), encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        return None, f"no error file ({e.strerror})"
    lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
    if len(lines) != 1 or not lines[0].strip():
        return None, "error file must hold exactly one non-empty line"
    if lines[0] != lines[0].rstrip():
        return None, "error file line has trailing white space"
    return lines[0], None


def check_invalid_case(report, validator, case_dir):
    path = os.path.join(case_dir, "input.json")
    expected, problem = read_error_file(case_dir)
    if problem:
        report.result(case_dir, False, problem)
        return
    expect_accept = os.path.exists(os.path.join(case_dir, "schema-valid"))
    try:
        doc = load_strict(path)
    except NotParseable as e:
        if expect_accept:
            report.result(path, False, f"marked schema-valid but not parseable: {e}")
        else:
            report.result(path, True, f"rejected (not parseable: {e})")
        return
    except OSError as e:
        report.result(path, False, f"cannot read: {e.strerror}")
        return
    error = first_error(validator, doc)
    # "$.noiseLayers[1].maskMinValue: must not ..." -> "$.noiseLayers[1].maskMinValue"
    expected_path = expected.split(": ", 1)[0] if expected.startswith("$") else "$"
    stray = stray_error(validator, doc, expected_path)
    if stray:
        report.result(path, False, f"schema error away from {expected_path}: {stray}")
    elif expect_accept:
        if error:
            report.result(path, False, f"marked schema-valid but rejected: {error}")
        else:
            report.result(path, True, "accepted (schema-valid: only the loader can reject it)")
    elif error:
        report.result(path, True, f"rejected ({error})")
    else:
        report.result(path, False, "accepted, expected the schema to reject it "
                                   "(add schema-valid if JSON Schema cannot express the rule)")


def main():
    srcdir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                             os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    report = Report(srcdir)
    schema_path = os.path.join(srcdir, "schemas", "terrain.schema.json")
    try:
        schema = load_strict(schema_path)
        Draft7Validator.check_schema(schema)
    except (NotParseable, OSError) as e:
        report.result(schema_path, False, f"cannot load the schema: {e}")
        return finish(report)
    except SchemaError as e:
        report.result(schema_path, False, f"not a valid draft-07 schema: {e.message}")
        return finish(report)
    report.result(schema_path, True, "a valid draft-07 schema")
    validator = Draft7Validator(schema)

    valid = sorted(glob.glob(os.path.join(srcdir, "tests", "valid", "*.json")))
    if not valid:
        report.result(os.path.join(srcdir, "tests", "valid"), False, "no valid specs found")
    for path in valid:
        check_must_accept(report, validator, path)

    # The golden specs of tests/data/terrain/ (the ones ports are checked on).
    for path in sorted(glob.glob(os.path.join(srcdir, "tests", "data", "terrain", "*.json"))):
        check_must_accept(report, validator, path)

    # Samples: any JSON file that is a terrain spec (has "noiseLayers").
    for path in sorted(glob.glob(os.path.join(srcdir, "samples", "**", "*.json"), recursive=True)):
        try:
            doc = load_strict(path)
        except NotParseable as e:
            report.result(path, False, f"not parseable: {e}")
            continue
        if isinstance(doc, dict) and "noiseLayers" in doc:
            check_must_accept(report, validator, path, doc)

    cases = sorted(d for d in glob.glob(os.path.join(srcdir, "tests", "invalid", "*"))
                   if os.path.isdir(d))
    if not cases:
        report.result(os.path.join(srcdir, "tests", "invalid"), False, "no invalid cases found")
    for case_dir in cases:
        check_invalid_case(report, validator, case_dir)
    return finish(report)


def finish(report):
    print(f"schema: {report.passed} passed, {report.failed} failed")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())

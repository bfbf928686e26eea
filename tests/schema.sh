#!/bin/sh
# Checks schemas/terrain.schema.json against the valid and invalid spec
# corpora (tests/schema_validate.py), with Debian's python3-jsonschema.
# Skips (77) when it is missing, unless TF_REQUIRE_SCHEMA_TEST=1 (CI).

srcdir=${TF_SRCDIR:-$(dirname "$0")/..}
python=/usr/bin/python3   # the python3 on PATH may lack jsonschema

if [ ! -x "$python" ]; then
    why="$python not found"
elif ! "$python" -c 'from jsonschema import Draft7Validator' 2>/dev/null; then
    why="$python cannot import jsonschema.Draft7Validator (install python3-jsonschema)"
else
    exec "$python" "$srcdir/tests/schema_validate.py" "$srcdir"
fi

if [ "${TF_REQUIRE_SCHEMA_TEST:-}" = 1 ]; then
    echo "schema.sh: $why; failing because TF_REQUIRE_SCHEMA_TEST=1" >&2
    exit 1
fi
echo "schema.sh: skipped: $why"
exit 77

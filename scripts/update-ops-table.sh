#!/usr/bin/env bash
# Regenerates the README's operator table from the code: the lines between
# the ops-table markers become `tunectl ops --markdown`. The CLI test fails
# when the two differ. Usage: scripts/update-ops-table.sh [TUNECTL]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tunectl=${1:-$repo/build/cmd/tunectl}
table=$("$tunectl" ops --markdown)
python3 - "$repo/README.md" "$table" <<'PY'
import sys
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
begin, end = "<!-- ops-table begin -->\n", "<!-- ops-table end -->"
a, b = text.index(begin) + len(begin), text.index(end)
open(path, "w").write(text[:a] + table + "\n" + text[b:])
PY

#!/usr/bin/env bash
# Rewrites the element listing at the end of docs/stages.md (the fenced block after the prose) from
# `pipeline_cli stages`, so the document always shows what the registry holds.
#   bash tools/update_stages_doc.sh [path/to/pipeline_cli]   (default build/bin/pipeline_cli)
set -euo pipefail
cd "$(dirname "$0")/.."
cli="${1:-build/bin/pipeline_cli}"
listing="$("$cli" stages)"
python3 - "$listing" <<'PY'
import sys
path = "docs/stages.md"
text = open(path).read()
end = text.rindex("```")              # the last fenced block: its closing fence,
start = text.rindex("```\n", 0, end)  # and its opening one
open(path, "w").write(text[:start] + "```\n" + sys.argv[1].rstrip("\n") + "\n" + text[end:])
PY
echo "docs/stages.md: listing updated from $cli"

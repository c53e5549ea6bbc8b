#!/usr/bin/env bash
# Copies deploy/haproxy.cfg into the ConfigMap of deploy/kubernetes/haproxy.yaml (the part between
# `haproxy.cfg: |` and the next `---`), indented four spaces. scripts/test.d/65-shards.sh fails
# when the two differ.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
/usr/bin/env python3 - "$here/../haproxy.cfg" "$here/haproxy.yaml" <<'PY'
import sys
cfg, manifest = sys.argv[1], sys.argv[2]
body = "\n".join(("    " + l) if l else "" for l in open(cfg).read().rstrip("\n").split("\n"))
text = open(manifest).read()
head, rest = text.split("  haproxy.cfg: |\n", 1)
tail = rest[rest.index("\n---\n"):]
open(manifest, "w").write(head + "  haproxy.cfg: |\n" + body + tail)
PY

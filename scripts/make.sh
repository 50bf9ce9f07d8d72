#!/usr/bin/env bash
# The README's front door: set up whatever is missing (a fast no-op when all is there),
# then hand over to make with the same arguments, e.g. `bash scripts/make.sh test`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
exec make "$@"

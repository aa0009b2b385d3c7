#!/usr/bin/env bash
# Build Fleet and pack its packages into tarballs, as `npm publish` would. Fleet's packages are
# not on the npm registry: a project outside this repository installs these tarballs instead.
#
#   bash scripts/pack.sh /tmp/fleet-tarballs                  # in a checkout of this repository
#   npm install /tmp/fleet-tarballs/*.tgz                     # in your project
#
# Extra arguments are more package folders to pack (relative to the repository), e.g. examples/backend-b200.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
[[ $# -ge 1 ]] || { echo "usage: scripts/pack.sh DEST [PACKAGE_DIR...]" >&2; exit 2; }
mkdir -p "$1"
DEST="$(cd "$1" && pwd)"
shift
(cd "$ROOT" && node scripts/build.mjs)
for p in "$ROOT"/packages/*/ "${@/#/$ROOT/}"; do
  (cd "$p" && npm pack --ignore-scripts --silent --pack-destination "$DEST" >/dev/null)
done

#!/usr/bin/env bash
# One idempotent set-up for rmsweb: installs the system packages it needs (Debian's chromium and
# redis-server, only when missing), installs the Node dependencies from the lock file, then runs
# the main job. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi
fi

missing=()
if ! command -v chromium >/dev/null 2>&1 && [ ! -x "${RMSWEB_CHROMIUM:-/usr/bin/chromium}" ]; then missing+=(chromium); fi
if ! command -v redis-server >/dev/null 2>&1; then missing+=(redis-server); fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]} with apt-get" >&2
  "${SUDO[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

if ! command -v node >/dev/null 2>&1 || ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
  echo "setup: rmsweb needs Node.js 20 or newer (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

npm ci --no-audit --no-fund

# The main job: the whole pipeline on the offline world (synthesize tasks, collect with reflection,
# export SFT data, train the student, roll it out, mine critical states, Salvage-DS, evaluate),
# ending with the results table and the path of the HTML report. Rerunning resumes.
npx rmsweb demo --preset quick --out runs/demo

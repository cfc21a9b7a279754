#!/usr/bin/env bash
# Creates trainer/.venv with the trainer's exact pins. torch==2.13.0 goes first, alone: on this
# project's machines that request takes the CPU build already on disk, and with it installed no
# later requirement can pull another (multi-GB CUDA) torch. On a GPU machine, install the torch
# 2.13.0 build for your CUDA first (see README) and this script keeps it.
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check torch==2.13.0
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
.venv/bin/python -c 'import torch, sys; v = torch.__version__.split("+")[0]; sys.exit(0 if v == "2.13.0" else f"torch {torch.__version__} installed, expected 2.13.0")'
# The package is used from the checkout (its options table is the repo's src/rl/options.json): a .pth
# file puts trainer/ on the venv's path, so `trainer/.venv/bin/python -m rmsweb_trainer` works from any
# directory without PYTHONPATH.
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
here="$PWD"
printf '%s\n' "$here" >"$site/rmsweb_trainer.pth"
(cd / && "$here/.venv/bin/python" -m rmsweb_trainer check)

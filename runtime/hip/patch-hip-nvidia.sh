#!/usr/bin/env bash
# Patched copy of HIP 5.2.3's include tree whose NVIDIA-platform headers compile with
# CUDA 13's nvcc. Usage: patch-hip-nvidia.sh SRC_INCLUDE_DIR OUT_DIR
#   SRC_INCLUDE_DIR: holds hip/ (Debian libamdhip64-dev 5.2.3-8: /usr/include, or
#                    usr/include of its extracted .deb)
#   OUT_DIR:         receives hip/ (edited: hip/nvidia_detail/nvidia_hip_runtime_api.h;
#                    record: hip/ATREX_PATCHED); compile with
#                    nvcc -x cu -D__HIP_PLATFORM_NVIDIA__ -I OUT_DIR ...
# Fails (exit 1, saying what differs) unless the source header is exactly the one the
# edits in patch_hip_nvidia.py were written for. `patch-hip-nvidia.sh --diff SRC` prints
# the edits as a unified diff. Interpreter: $PYTHON, else python3.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "${PYTHON:-python3}" "$here/patch_hip_nvidia.py" "$@"

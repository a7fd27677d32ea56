#!/usr/bin/env bash
# Builds what scripts/gpu/interop.sh runs (release binary, GPU test binary, the interop
# probe) with nvcc-compiled kernels and stages it, stripped, in /work/main/.carry-interop
# (the device tool sends /work/main's tree: carry ".carry-interop" and ".gl").
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/cuda-toolchain.sh
DEST=${DEST:-/work/main/.carry-interop}
cargo build --release --bin cudalens --example interop_probe
cargo test --release --test gpu --no-run --message-format=json 2>/dev/null >"${CARGO_TARGET_DIR:-target}/gpu-tests.json"
mkdir -p "$DEST"
T=${CARGO_TARGET_DIR:-target}
cp "$T/release/cudalens" "$DEST/cudalens"
cp "$T/release/examples/interop_probe" "$DEST/interop_probe"
python3 - "$T/gpu-tests.json" "$DEST" <<'PY'
import json, shutil, sys
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("executable") and msg.get("target", {}).get("name") == "gpu":
        shutil.copy(msg["executable"], f"{sys.argv[2]}/gpu-tests")
PY
cp scripts/gpu/interop.sh "$DEST/interop.sh"
strip "$DEST"/cudalens "$DEST"/interop_probe "$DEST"/gpu-tests
du -sh "$DEST"

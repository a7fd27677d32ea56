#!/usr/bin/env bash
# Builds the release binary and the release test binaries with nvcc-compiled kernels and
# stages them in .carry/ (ignored by git) for the device tool: `carry: [".carry", ".gl"]`.
# The GL loader debs in .gl/ are fetched once as described in ../../docs/gpu-runs.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/cuda-toolchain.sh
cargo build --release
cargo test --release --no-run --message-format=json 2>/dev/null >target/release-tests.json
mkdir -p .carry
cp target/release/cudalens .carry/cudalens
python3 - <<'PY'
import json, shutil
for line in open("target/release-tests.json"):
    msg = json.loads(line)
    exe = msg.get("executable")
    name = msg.get("target", {}).get("name")
    if exe and name in ("gpu", "cli", "soak"):
        shutil.copy(exe, f".carry/{name}-tests")
        print("staged", name, exe)
PY
strip .carry/* 2>/dev/null || true
du -sh .carry .gl

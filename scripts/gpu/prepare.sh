#!/usr/bin/env bash
# Builds the release binary and the release test binaries with nvcc-compiled kernels and
# packs them into .carry/bundle.tar.xz (ignored by git) for the device tool:
# `carry: [".carry", ".gl"]`; scripts/gpu/run.sh unpacks it there. Packed, because the
# binaries (20 MiB of them fatbins) and the tracked tree must travel in 64 MiB together.
# BEFORE=path/to/cudalens adds an older build as before/cudalens, for before/after timings
# on the same lease (BEFORE_TESTS= likewise its GPU tests); SWEEP= adds the kernel-variant sweep. The GL loader debs in .gl/ are fetched once as in docs/gpu-machine.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/cuda-toolchain.sh
cargo build --release
cargo test --release --no-run --message-format=json 2>/dev/null >target/release-tests.json
stage=target/carry-stage
rm -rf "$stage" .carry
mkdir -p "$stage" .carry
cp target/release/cudalens "$stage/cudalens"
python3 - "$stage" <<'PY'
import json, shutil, sys
for line in open("target/release-tests.json"):
    msg = json.loads(line)
    exe = msg.get("executable")
    name = msg.get("target", {}).get("name")
    if exe and name in ("gpu", "cli", "soak"):
        shutil.copy(exe, f"{sys.argv[1]}/{name}-tests")
        print("staged", name, exe)
PY
if [ -n "${BEFORE:-}" ]; then
    mkdir -p "$stage/before"
    cp "$BEFORE" "$stage/before/cudalens"
fi
# BEFORE_TESTS=path/to/gpu-test-binary: the GPU tests built on older code (a new test that
# must fail there: run.sh resize-before).
if [ -n "${BEFORE_TESTS:-}" ]; then
    mkdir -p "$stage/before"
    cp "$BEFORE_TESTS" "$stage/before/gpu-tests"
fi
strip "$stage"/* 2>/dev/null || true
# Packed under another name first: a device call started before this line ends finds no
# bundle rather than a cut one.
tar -C "$stage" -cJf .carry/bundle.tar.xz.part .
mv .carry/bundle.tar.xz.part .carry/bundle.tar.xz
# SWEEP=path/to/sweep (scripts/gpu/sweep/build.sh) carries the kernel-variant sweep too.
if [ -n "${SWEEP:-}" ]; then
    cp "$SWEEP" .carry/sweep
fi
# VARIANT=path/to/cudalens carries a trial build of this code with one change (run.sh
# mandel-variant), for a three-way comparison on one lease.
if [ -n "${VARIANT:-}" ]; then
    mkdir -p .carry/variant
    cp "$VARIANT" .carry/variant/cudalens
    strip .carry/variant/cudalens 2>/dev/null || true
fi
du -sh .carry .gl
echo "prepare.sh: ready"

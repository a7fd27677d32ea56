#!/usr/bin/env bash
# Here (the build machine, no GPU needed): builds the release binary, cudalens-bench and the
# release test binaries with nvcc-compiled kernels, and packs them, stripped, into
# .carry/bundle.tar.xz (ignored by git) for a GPU machine without Rust. The device tool
# sends the tracked tree plus `carry: [".carry", ".gl"]`; scripts/gpu/verify.sh, bench.sh
# and soak.sh unpack the bundle there. Packed, because binaries and tree travel within
# 64 MiB together.
#   BEFORE=path/to/cudalens          an older build, for before/after timings (bench.sh)
#   BEFORE_BENCH=path/to/cudalens-bench  its research benches, when it has them
#   LEAVE_OUT="soak-tests cudalens-bench"  staged binaries left out of the bundle
# The GL loader debs in .gl/ are fetched once (docs/gpu-harness.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/cuda-toolchain.sh
export CUDALENS_REQUIRE_NVCC=1
cargo build --release --jobs "${JOBS:-2}" --bin cudalens
cargo build --release --jobs "${JOBS:-2}" -p cudalens-bench
# Only the test binaries the harness runs (the list below, where the file exists).
WANTED="gpu gpu_histogram gpu_typed gpu_poster gpu_video soak cli hostile gl_roundtrip interop_fallback fidelity user_kernel user_kernel_runtime edits kernel_stage"
tests=(--lib)
for t in $WANTED; do [ -e "tests/$t.rs" ] && tests+=(--test "$t"); done
cargo test --release --jobs "${JOBS:-2}" --no-run --message-format=json "${tests[@]}" 2>/dev/null >target/release-tests.json
stage=target/carry-stage
rm -rf "$stage" .carry
mkdir -p "$stage" .carry
cp target/release/cudalens target/release/cudalens-bench "$stage/"
# The test binaries the harness runs, named <test>-tests ("lib-tests": the unit tests).
WANTED="$WANTED" python3 - "$stage" <<'PY'
import json, os, shutil, sys
wanted = set(os.environ["WANTED"].split())
for line in open("target/release-tests.json"):
    msg = json.loads(line)
    exe, target = msg.get("executable"), msg.get("target", {})
    name = target.get("name")
    if not exe or not msg.get("profile", {}).get("test"):
        continue
    if name in wanted:
        shutil.copy(exe, f"{sys.argv[1]}/{name}-tests")
    elif name == "cudalens" and "lib" in target.get("kind", []):
        shutil.copy(exe, f"{sys.argv[1]}/lib-tests")
    else:
        continue
    print("staged", name)
PY
# The commit the bundle was built from (a + when the tree had changes), for the ledger row.
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src kernels build.rs Cargo.toml tests tools || echo +)" >"$stage/COMMIT"
if [ -n "${BEFORE:-}" ]; then
    mkdir -p "$stage/before"
    cp "$BEFORE" "$stage/before/cudalens"
    [ -z "${BEFORE_BENCH:-}" ] || cp "$BEFORE_BENCH" "$stage/before/cudalens-bench"
fi
strip "$stage"/*-tests "$stage"/cudalens* "$stage"/before/* 2>/dev/null || true
# LEAVE_OUT="soak-tests cudalens-bench": binaries a call does not need, when the carry is full.
for name in ${LEAVE_OUT:-}; do rm -f "$stage/$name"; done
# Packed under another name first: a device call started before this line ends finds no
# bundle rather than a cut one.
tar -C "$stage" -cJf .carry/bundle.tar.xz.part .
mv .carry/bundle.tar.xz.part .carry/bundle.tar.xz
size=$(du -sm .carry/bundle.tar.xz | cut -f1)
tree=$(git ls-files -z | du -cm --files0-from=- | tail -n1 | cut -f1)
echo "bundle ${size} MiB, tracked tree ${tree} MiB, .gl $(du -sm .gl 2>/dev/null | cut -f1) MiB (64 MiB in all)"
[ $((size + tree)) -lt 60 ] || { echo "prepare.sh: bundle and tree exceed the carry limit" >&2; exit 1; }
echo "prepare.sh: ready"

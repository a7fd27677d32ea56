# Sourced by verify.sh, bench.sh and soak.sh on the GPU machine, from the repository root:
# GL loaders, the bundle unpacked into .carry/bin, the test environment, $OUT and `step`.
set -u
OUT=${OUT:-/tmp/cudalens-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done
ldconfig 2>/dev/null || true
# The NVIDIA Vulkan ICD is not always where the loader looks (the external interop path).
if ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1 &&
    [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
B=.carry/bin
if [ ! -x "$B/cudalens" ]; then
    [ -f .carry/bundle.tar.xz ] || { echo "no .carry/bundle.tar.xz: run scripts/gpu/prepare.sh and carry .carry" >&2; exit 2; }
    mkdir -p "$B"
    tar -C "$B" -xJf .carry/bundle.tar.xz
fi
# Test binaries find the copied tree's data, and the binary under test, through these; a
# GPU test that cannot reach the GPU fails instead of passing as skipped.
export CUDALENS_TEST_DATA="$PWD/tests/data" CUDALENS_BIN="$PWD/$B/cudalens"
export CARGO_BIN_EXE_cudalens="$PWD/$B/cudalens"
export CUDALENS_REQUIRE_GPU=1 RUST_BACKTRACE=1
LOG="$OUT/log.txt"
SUMMARY="$OUT/summary.txt"

# step NAME LIMIT_SECONDS COMMAND...: runs COMMAND with a time limit (and within DEADLINE,
# epoch seconds, when set), its output to the log; one line to the summary.
step() {
    local name=$1 limit=$2
    shift 2
    echo "=== $name: $*" >>"$LOG"
    if [ -n "${DEADLINE:-}" ]; then
        local left=$((DEADLINE - $(date +%s)))
        if [ "$left" -lt 10 ]; then
            echo "$name SKIPPED (no time left)" | tee -a "$SUMMARY" "$LOG"
            return
        fi
        [ "$left" -lt "$limit" ] && limit=$left
    fi
    local start=$SECONDS
    timeout "$limit" bash -c '"$@"' step "$@" >>"$LOG" 2>&1
    local rc=$?
    local verdict=ok
    [ "$rc" -eq 0 ] || verdict=FAIL
    [ "$rc" -eq 124 ] && verdict="FAIL (timed out)"
    echo "$name $verdict rc=$rc $((SECONDS - start))s" | tee -a "$SUMMARY" "$LOG"
}

# The one-line summary of this call: passed steps over all, and the failed ones.
finish() {
    local all failed
    all=$(grep -c '' "$SUMMARY" 2>/dev/null || echo 0)
    failed=$(grep -E ' (FAIL|SKIPPED)' "$SUMMARY" 2>/dev/null | cut -d' ' -f1 | tr '\n' ' ')
    local line="$1: $((all - $(echo "$failed" | wc -w)))/$all steps passed${failed:+; not passed: $failed}"
    echo "$line" | tee "$OUT/result.txt"
    [ -z "$failed" ]
}

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
# Every call ends within the device tool's 10 minutes: steps that could not end by DEADLINE
# (epoch seconds; default 9 minutes from now) are skipped, longer ones cut at it.
DEADLINE=${DEADLINE:-$(($(date +%s) + 540))}
SUMMARY="$OUT/summary.txt"

# step NAME LIMIT_SECONDS COMMAND...: runs COMMAND with a time limit (and within DEADLINE,
# epoch seconds, when set), its output to the log; one line to the summary.
step() {
    local name=$1 limit=$2
    shift 2
    # ONLY="a b": run only the steps named (a rerun of a few).
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return; fi
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
    # A step's tests each end by its end too (run_plan's processes outlive a timeout).
    STEP_END=$(($(date +%s) + limit)) timeout "$limit" bash -c '"$@"' step "$@" >>"$LOG" 2>&1
    local rc=$?
    local verdict=ok
    [ "$rc" -eq 0 ] || verdict=FAIL
    [ "$rc" -eq 124 ] && verdict="FAIL (timed out)"
    echo "$name $verdict rc=$rc $((SECONDS - start))s" | tee -a "$SUMMARY" "$LOG"
}

# The one-line summary of this call (passed steps over all, and the failed ones), and the
# run ledger's row for it (docs/ledger.md: its number is filled in there): date, GPU,
# commit of the bundle, steps, and memcheck's verdict or that it did not run.
finish() {
    local all failed
    all=$(grep -c '' "$SUMMARY" 2>/dev/null || echo 0)
    failed=$(grep -E ' (FAIL|SKIPPED)' "$SUMMARY" 2>/dev/null | cut -d' ' -f1 | tr '\n' ' ')
    local line="$1: $((all - $(echo "$failed" | wc -w)))/$all steps passed${failed:+; not passed: $failed}"
    local gpu commit steps memcheck
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 | grep -o 'H[0-9]00' || echo "?")
    commit=$(cat "$B/COMMIT" 2>/dev/null || echo "?")
    steps=$(cut -d' ' -f1 "$SUMMARY" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
    memcheck=$(grep -E '^memcheck ' "$SUMMARY" 2>/dev/null | cut -d' ' -f2 || true)
    memcheck=${memcheck:+memcheck $memcheck}
    {
        echo "$line"
        echo "| ? | $(date -u +%F) | $gpu | $commit | $1: $steps | $line; ${memcheck:-memcheck not run in this call} |"
    } | tee "$OUT/result.txt"
    [ -z "$failed" ]
}

# Tests that fault on purpose carry this in their names; the sanitizer steps leave them out
# (and prove with a planted error that they still catch one: verify.sh memcheck-planted).
ON_PURPOSE=faults_on_purpose
# Test processes at once (each test runs in a process of its own, on the one GPU).
JOBS=${JOBS:-4}
# One test's limit in seconds.
TEST_LIMIT=${TEST_LIMIT:-420}
TESTLOGS=${TESTLOGS:-/tmp/cudalens-tests}

# plan_tests PLAN BIN [libtest listing arguments...]: appends "BIN NAME" for each test BIN
# runs with those arguments (words filter by name; `--ignored` takes the ignored tests,
# which are otherwise left out); under SANITIZER the tests that fault on purpose are left
# out too.
plan_tests() {
    local plan=$1 bin=$2 ignored
    shift 2
    [ -x "$bin" ] || { echo "no test binary $bin"; return 1; }
    ignored=$(mktemp)
    case " $* " in
        *" --ignored "*) : >"$ignored" ;;
        *) "$bin" --list --format terse --ignored 2>/dev/null | sed -n 's/: test$//p' >"$ignored" ;;
    esac
    "$bin" --list --format terse "$@" 2>/dev/null | sed -n 's/: test$//p' |
        grep -vxF -f "$ignored" |
        { if [ -n "${SANITIZER:-}" ]; then grep -v -- "$ON_PURPOSE" || true; else cat; fi; } |
        sed "s|^|$bin |" >>"$plan"
    rm -f "$ignored"
}

# one_test BIN NAME: runs one test in its own process (under compute-sanitizer when
# SANITIZER names a tool, following child processes such as the kernel host) within
# TEST_LIMIT; its output to $RUNLOGS/<bin>.<name>.log, "rc seconds bin name" to
# $RUNLOGS/results.
one_test() {
    local bin=$1 name=$2 start=$SECONDS rc limit=$TEST_LIMIT
    if [ -n "${STEP_END:-}" ]; then
        local left=$((STEP_END - $(date +%s) - 2))
        [ "$left" -lt "$limit" ] && limit=$((left > 1 ? left : 1))
    fi
    local log="$RUNLOGS/$(basename "$bin").$name.log"
    local wrap=()
    [ -z "${SANITIZER:-}" ] ||
        wrap=(compute-sanitizer --tool "$SANITIZER" --error-exitcode 9 --target-processes all)
    timeout "$limit" "${wrap[@]}" "$bin" --exact "$name" --include-ignored --nocapture \
        --test-threads=1 >"$log" 2>&1
    rc=$?
    # An error the sanitizer reports in a child process (the kernel host) fails the test too.
    if [ "$rc" -eq 0 ] && [ -n "${SANITIZER:-}" ] && grep -q 'ERROR SUMMARY: [1-9]' "$log"; then
        rc=9
    fi
    echo "$rc $((SECONDS - start)) $(basename "$bin") $name" >>"$RUNLOGS/results"
}

# run_plan LABEL PLAN: every test of PLAN, JOBS at a time, then those that fault on purpose
# one at a time (a fault stalls every context on the GPU while it is cleared, and their
# deadlines are measured). Prints per binary "N passed, M failed", the slowest tests and
# every failed test's output (with the sanitizer's error summaries under SANITIZER); every
# test's output goes to $OUT/tests.txt. Fails when a test failed or PLAN is empty.
run_plan() {
    local label=$1 plan=$2
    export RUNLOGS="$TESTLOGS/$label"
    rm -rf "$RUNLOGS"
    mkdir -p "$RUNLOGS"
    [ -s "$plan" ] || { echo "$label: no tests selected"; return 1; }
    grep -v -- "$ON_PURPOSE" "$plan" | xargs -r -P "$JOBS" -L 1 bash -c 'one_test "$@"' one_test
    { grep -- "$ON_PURPOSE" "$plan" || true; } | xargs -r -P 1 -L 1 bash -c 'one_test "$@"' one_test
    local results="$RUNLOGS/results" failed
    touch "$results"
    echo "--- $label: $(wc -l <"$plan") tests, $JOBS at a time${SANITIZER:+, under $SANITIZER}"
    awk '{ n[$3]++; if ($1 != 0) f[$3]++ } END { for (b in n) printf "%s: %d passed, %d failed\n", b, n[b] - f[b], f[b] }' "$results" | sort
    echo "slowest:"
    sort -k2,2nr "$results" | head -n 5 | awk '{ printf "  %4d s  %s %s (rc %s)\n", $2, $3, $4, $1 }'
    if [ -n "${SANITIZER:-}" ]; then
        echo "sanitizer summaries:"
        cat "$RUNLOGS"/*.log | grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' | sort | uniq -c
    fi
    local log
    for log in "$RUNLOGS"/*.log; do
        echo "=== $label: $(basename "$log" .log)"
        cat "$log"
    done >>"$OUT/tests.txt"
    failed=$(awk '$1 != 0' "$results")
    [ "$(wc -l <"$results")" -eq "$(wc -l <"$plan")" ] || { echo "$label: some tests did not report"; return 1; }
    [ -z "$failed" ] && return 0
    echo "failed:"
    echo "$failed"
    echo "$failed" | while read -r _ _ bin name; do
        echo "=== output of $bin $name"
        tail -n 200 "$RUNLOGS/$bin.$name.log"
    done
    return 1
}

# tests_of LABEL BIN... : every test of each BIN (one plan), in parallel (run_plan).
tests_of() {
    local label=$1 plan
    shift
    plan=$(mktemp)
    local bin
    for bin in "$@"; do
        plan_tests "$plan" "$bin" || { rm -f "$plan"; return 1; }
    done
    run_plan "$label" "$plan"
    local rc=$?
    rm -f "$plan"
    return $rc
}
export ON_PURPOSE JOBS TEST_LIMIT TESTLOGS
export -f plan_tests one_test run_plan tests_of

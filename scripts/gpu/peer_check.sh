#!/usr/bin/env bash
# Runs `bench --peers` on one filter at a time (4K, 5 runs), so that a peer that fails
# names itself, then compute-sanitizer memcheck on each at 512×512 (first errors only).
# Usage: bash scripts/gpu/peer_check.sh path/to/cudalens SPEC... (on the device).
set -u
bin=$1
shift
for spec in "$@"; do
    echo "--- $spec"
    "$bin" bench --backend cuda --peers --runs 5 --size 3840x2160 --filter "$spec" 2>&1 | grep -v "^\[" | tail -4
    echo "rc=$?"
done
for spec in "$@"; do
    echo "--- memcheck $spec"
    compute-sanitizer --tool memcheck --print-limit 3 --error-exitcode 9 \
        "$bin" bench --backend cuda --peers --runs 1 --size 512x512 --filter "$spec" 2>&1 |
        grep -E "Invalid|at 0x|by thread|Saved host|ERROR SUMMARY|=========     (Device|Host) Frame" | head -12
done

#!/usr/bin/env python3
"""Checks median5's network (kernels/filters/median.cu) on every input of zeros and ones.

The kernel finds the median of a 5x5 window with min and max alone: each column of five
sorted by a 9-comparator network, columns merged in pairs by Batcher's odd-even merge, the
two pairs merged (only ranks 7..12 kept), and rank 12 of 25 chosen as the minimum over
i + j = 6 of max(d_i, e_j). This script builds the same network in the same order and
evaluates it on all 2^25 inputs of zeros and ones, 2^20 at a time (one Python integer per
value, a bit per input). A network of min and max selects rank k of every input if it does so on
every input of zeros and ones (the 0-1 principle: min and max commute with every monotone
map to {0, 1}), so passing here proves the kernel's selection for all pixel values.

Also prints how many min and max the network needs once the outputs nobody reads are
dropped (as the compiler drops them), per lane of the kernel.
Pure Python; run: python3 scripts/median5_network.py  (exit 0 when the check passes).
"""
import sys

INPUTS = 25
CASES = 1 << INPUTS
CHUNK_BITS = 20  # cases are checked 2^20 at a time (a few MB per value)
CHUNK = 1 << CHUNK_BITS

ops = []  # (kind, a, b); a value is ("in", i) or ("op", index)


def op(kind, a, b):
    ops.append((kind, a, b))
    return ("op", len(ops) - 1)


def compare_exchange(a, b):
    return op("min", a, b), op("max", a, b)


def merge_sorted(a, b):
    """Batcher's odd-even merge, as merge_sorted in kernels/filters/median.cu."""
    if not a:
        return list(b)
    if not b:
        return list(a)
    if len(a) == 1 and len(b) == 1:
        return list(compare_exchange(a[0], b[0]))
    v = merge_sorted(a[0::2], b[0::2])
    w = merge_sorted(a[1::2], b[1::2])
    pairs = min(len(w), len(v) - 1)
    z = [v[0]]
    for i in range(pairs):
        z += compare_exchange(w[i], v[i + 1])
    return z + w[pairs:] + v[pairs + 1:]


def sort5(c):
    """sort5_pairs in kernels/filters/median.cu."""
    c = list(c)
    for i, j in [(0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2)]:
        c[i], c[j] = compare_exchange(c[i], c[j])
    return c


def median25(columns):
    """median25_pairs for the lane at column 2 of the window's columns 0..4."""
    cols = [sort5(col) for col in columns]
    left_pair = merge_sorted(cols[0], cols[1])
    pair = merge_sorted(cols[2], cols[3])
    d = merge_sorted(left_pair, pair)
    far = cols[4]
    median = d[12]
    for i in range(5):
        median = op("min", median, op("max", d[7 + i], far[4 - i]))
    return median, cols, left_pair


def input_bits(i, chunk):
    """Input i over the cases chunk * CHUNK + c: bit c is bit i of the case."""
    if i >= CHUNK_BITS:
        return (1 << CHUNK) - 1 if (chunk >> (i - CHUNK_BITS)) & 1 else 0
    if i < 3:
        return int.from_bytes(bytes([(0xAA, 0xCC, 0xF0)[i]]) * (CHUNK // 8), "little")
    half = 1 << (i - 3)
    return int.from_bytes((b"\x00" * half + b"\xff" * half) * (CHUNK // (16 * half)), "little")


def at_least_13_ones(inputs):
    """Bit c set where case c has at least 13 ones among its 25 inputs (bit-sliced count)."""
    count = [0] * 5
    for x in inputs:
        carry = x
        for b in range(5):
            count[b], carry = count[b] ^ carry, count[b] & carry
    return count[4] | (count[3] & count[2] & (count[1] | count[0]))


def cone(value, seen):
    if value[0] == "op" and value[1] not in seen:
        seen.add(value[1])
        _, a, b = ops[value[1]]
        cone(a, seen)
        cone(b, seen)
    return seen


def main():
    columns = [[("in", 5 * c + r) for r in range(5)] for c in range(5)]
    median, cols, left_pair = median25(columns)

    # Min and max a lane computes: its column's sort, its pair's merge and the rest of the
    # median; lane l + 1's sorted column, lane l - 2's pair and lane l + 2's sorted column
    # come by shuffle.
    whole = cone(median, set())
    shuffled = set()
    for v in left_pair + cols[3] + cols[4]:
        cone(v, shuffled)
    print(f"min/max per lane and word: {len(whole - shuffled)}"
          f" (the whole network of one window: {len(whole)})")

    sys.setrecursionlimit(10000)
    ok = True
    for chunk in range(CASES // CHUNK):
        bits = [input_bits(i, chunk) for i in range(INPUTS)]
        values = {}

        def evaluate(v):
            if v[0] == "in":
                return bits[v[1]]
            if v[1] not in values:
                kind, a, b = ops[v[1]]
                x, y = evaluate(a), evaluate(b)
                values[v[1]] = x & y if kind == "min" else x | y
            return values[v[1]]

        ok = ok and evaluate(median) == at_least_13_ones(bits)
    print(f"median of 25 on all {CASES} inputs of zeros and ones: {'pass' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

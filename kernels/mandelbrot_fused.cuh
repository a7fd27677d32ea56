// mandelbrot_fused.cuh: Mariani-Silver in one pass, for one level of MS_FUSED_CELL-pixel
// cells (the tuning up to 4096x4096). Included by mandelbrot.cu after its stores, records and warp
// helpers; the decisions are those of ms_process on the same cells, so the CPU reference
// (src/mandelbrot/mariani_silver.rs) is unchanged.
//
// Why: the two-pass form (every grid line, then one block per cell) waits for the slowest
// line pixel before any interior starts, so a view with points at the max dwell both on a
// line and inside a cell pays two such latencies where one thread per pixel pays one
// (docs/gpu-runs.md, run 43). Here nothing waits for the lines as a whole:
//
// - One grid of MS_BLOCK-thread blocks; each takes a tile from a counter (not blockIdx, so
//   a tile is only ever waited on by blocks that took their tile after it: no deadlock
//   whatever order the hardware starts blocks in). The first tiles are line tiles, the
//   rest one cell each, row by row.
// - A line tile: each warp evaluates one unit, the top row (up to 16 px) and left column
//   (up to 15 px) of a cell corner, one pixel a lane, then releases the unit's flag
//   (= this frame's epoch). Units partition the grid lines; cell (i, j)'s border is in
//   units (i, j), (i+1, j), (i, j+1) and (i+1, j+1).
// - A cell tile: thread t iterates interior pixel t at once, without waiting. Before it
//   starts and every MS_FUSED_CHECK steps each warp looks at the cell's decision; while
//   there is none it acquires the four flags and, when all are set, decides from the
//   border (uniform: fill with that dwell; else evaluate) and publishes that to the
//   block. On "fill" the warps stop iterating and fill; on "evaluate" they finish their
//   pixels. A warp done before the decision waits for it. The iterations of a cell that
//   is then filled are the price: they run on slots the lines leave idle.
// Border values written by other blocks are read through L2 (__ldcg), never a stale L1.
#pragma once

// MS_FUSED_CELL (mirrored on the Rust side) and MS_FUSED_CHECK are defined in mandelbrot.cu.
#define MS_UNDECIDED (-1)
#define MS_EVALUATE (-2)

// The flags of the units (one per grid-line crossing, `cols` x `rows`), this frame's epoch.
struct MsFused {
    unsigned int* flags;
    unsigned int epoch;
    int cols, rows;
};

// Pixel `k` of unit (i, j); false past the unit's last pixel.
__device__ __forceinline__ bool ms_unit_pixel(const MandelView& v, const MsFused& f, int i, int j, int k, int2& p)
{
    const int x0 = min(i * MS_FUSED_CELL, v.width - 1), y0 = min(j * MS_FUSED_CELL, v.height - 1);
    const int top = i + 1 < f.cols ? min((i + 1) * MS_FUSED_CELL, v.width - 1) - x0 : 1;
    const int left = j + 1 < f.rows ? min((j + 1) * MS_FUSED_CELL, v.height - 1) - y0 - 1 : 0;
    if (k < top) {
        p = make_int2(x0 + k, y0);
        return true;
    }
    k -= top;
    p = make_int2(x0, y0 + 1 + k);
    return k < left;
}

// A warp evaluates unit `u` and releases its flag.
template <typename E>
__device__ void ms_fused_unit(const MsArgs& a, const MsFused& f, int u)
{
    if (u >= f.cols * f.rows) return;
    int2 p;
    if (ms_unit_pixel(a.view, f, u % f.cols, u / f.cols, threadIdx.x % 32, p)) ms_eval_store<E>(a, p.x, p.y);
    __threadfence();
    __syncwarp();
    if (threadIdx.x % 32 == 0) store_release_gpu(&f.flags[u], f.epoch);
}

// Acquires the flags of cell (i, j)'s four units: their pixels are then visible to this thread.
__device__ __forceinline__ bool ms_fused_acquire(const MsFused& f, int i, int j)
{
    bool ready = true;
    for (int k = 0; k < 4; ++k)
        ready = ready && load_acquire_gpu(&f.flags[(j + k / 2) * f.cols + i + k % 2]) == f.epoch;
    return ready;
}

// The cell's decision (a dwell to fill with, MS_EVALUATE or MS_UNDECIDED), deciding it when
// no warp has yet and the border is complete. Warp-collective.
__device__ int ms_fused_decision(const MsArgs& a, const MsFused& f, MsRect r, int i, int j, int* decision)
{
    int d = __shfl_sync(FULL_MASK, *(volatile int*)decision, 0);
    if (d != MS_UNDECIDED) return d;
    if (!__all_sync(FULL_MASK, ms_fused_acquire(f, i, j))) return MS_UNDECIDED;
    const int2 m = ms_warp_border_minmax(a, r);
    d = m.x == m.y ? m.x : MS_EVALUATE;
    if (threadIdx.x % 32 == 0 && atomicCAS(decision, MS_UNDECIDED, d) == MS_UNDECIDED) {
        ms_record(a, r, d == MS_EVALUATE ? MS_KIND_LEAF : MS_KIND_FILL, 0);
        if (d == MS_EVALUATE) ms_count_evaluated(a, ms_interior_pixels(r));
    }
    return d;
}

// The block's cell: its interior iterated at once, then filled or kept as the border decides.
template <typename T>
__device__ void ms_fused_cell(const MsArgs& a, const MsFused& f, int cell)
{
    __shared__ int decision;
    const int i = cell % (f.cols - 1), j = cell / (f.cols - 1);
    const MsRect r = ms_cell(ms_image(a.view), MS_FUSED_CELL, i, j);
    const int interior = ms_interior_pixels(r);
    if (interior == 0) return;
    if (threadIdx.x == 0) decision = MS_UNDECIDED;
    __syncthreads();
    if (threadIdx.x / 32 * 32 >= interior) return; // a warp with no pixel (small edge cells)
    const bool mine = threadIdx.x < interior;
    const int2 p = ms_interior_pixel(r, mine ? threadIdx.x : 0);
    MandelOrbit<T> o;
    o.start(a.view, p.x, p.y);
    bool done = !mine;
    int d = MS_UNDECIDED;
    // The decision first: a cell that starts after its border is known wastes nothing.
    while (true) {
        d = ms_fused_decision(a, f, r, i, j, &decision);
        if (d == MS_EVALUATE && !done) done = o.run(a.view, a.view.max_dwell);
        if (d != MS_UNDECIDED || __all_sync(FULL_MASK, done)) break;
        if (!done) done = o.run(a.view, MS_FUSED_CHECK);
    }
    while (d == MS_UNDECIDED) {
        __nanosleep(256);
        d = ms_fused_decision(a, f, r, i, j, &decision);
    }
    if (!mine) return;
    if (d == MS_EVALUATE) {
        ms_store(a, p.x, p.y, o.result(a.view, a.smooth != nullptr));
    } else {
        if (a.smooth) ms_fused_acquire(f, i, j); // the border's values, released by their units
        ms_fill_store(a, r, p.x, p.y, d);
    }
}

// One block: its tile's units or cell.
template <typename T>
__device__ void ms_fused(const MsArgs& a, const MsFused& f)
{
    __shared__ int tile;
    if (threadIdx.x == 0) tile = (int)atomicAdd(&a.counters[MS_COUNT_TILES], 1u);
    __syncthreads();
    const int line_tiles = div_up(f.cols * f.rows, MS_WARPS);
    if (tile < line_tiles) ms_fused_unit<PlainDwells<T>>(a, f, tile * MS_WARPS + threadIdx.x / 32);
    else ms_fused_cell<T>(a, f, tile - line_tiles);
}

// mandelbrot_fused.cuh: Mariani-Silver in one pass, for one level of MS_FUSED_CELL-pixel
// cells (the tuning up to 3840x2160). Included by mandelbrot.cu after its stores, records and warp
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
// - A cell tile: one warp first acquires the four flags and, when all are set, decides
//   from the border (uniform: fill with that dwell; else evaluate) for the block, which
//   waits for it at a barrier: the common case, a cell whose border is already known,
//   reads the border once and iterates nothing in vain. Thread t holds interior pixel
//   (t % 16, t / 16), two rows a warp. Undecided, every thread iterates its pixel at once,
//   and every MS_FUSED_CHECK steps each warp looks at the decision, taking it itself when
//   the border is complete. On "fill" the warps stop iterating and fill; on "evaluate"
//   they finish their pixels. A warp done before the decision waits for it. The iterations
//   of a cell that is then filled are the price: they run on slots the lines leave idle.
//   (Before session 17 every warp took the first decision itself, and the cell's pixels
//   were laid out row after row: 22 % more instructions at 4096x4096, run 143.)
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

// The cell's decision from its border (a dwell to fill with, or MS_EVALUATE), or
// MS_UNDECIDED while the border is incomplete. Warp-collective, reads only.
__device__ int ms_fused_decide(const MsArgs& a, const MsFused& f, MsRect r, int i, int j)
{
    if (!__all_sync(FULL_MASK, ms_fused_acquire(f, i, j))) return MS_UNDECIDED;
    const int2 m = ms_warp_border_minmax(a, r);
    return m.x == m.y ? m.x : MS_EVALUATE;
}

// Records a decision taken (once a cell).
__device__ __forceinline__ void ms_fused_record(const MsArgs& a, MsRect r, int d)
{
    ms_record(a, r, d == MS_EVALUATE ? MS_KIND_LEAF : MS_KIND_FILL, 0);
    if (d == MS_EVALUATE) ms_count_evaluated(a, ms_interior_pixels(r));
}

// The cell's decision, deciding it when no warp has yet and the border is complete.
// Warp-collective.
__device__ int ms_fused_decision(const MsArgs& a, const MsFused& f, MsRect r, int i, int j, int* decision)
{
    int d = __shfl_sync(FULL_MASK, *(volatile int*)decision, 0);
    if (d != MS_UNDECIDED) return d;
    d = ms_fused_decide(a, f, r, i, j);
    if (d != MS_UNDECIDED && threadIdx.x % 32 == 0 && atomicCAS(decision, MS_UNDECIDED, d) == MS_UNDECIDED)
        ms_fused_record(a, r, d);
    return d;
}

// The block's cell (i, j): its interior iterated at once, then filled or kept as the border
// decides. Thread t holds interior pixel (t % MS_FUSED_CELL, t / MS_FUSED_CELL) of the cell,
// so a warp holds two rows of it.
template <typename T>
__device__ void ms_fused_cell(const MsArgs& a, const MsFused& f, int i, int j)
{
    static_assert(MS_BLOCK == MS_FUSED_CELL * MS_FUSED_CELL, "a thread per pixel of a cell");
    __shared__ int decision;
    const MsRect r = ms_cell(ms_image(a.view), MS_FUSED_CELL, i, j);
    const int w = ms_interior_w(r), h = ms_interior_h(r);
    if (w * h == 0) return;
    // The decision first, by one warp (the border is then read once, not once a warp): a
    // cell that starts after its border is known, the common case, wastes nothing.
    if (threadIdx.x < 32) {
        const int d = ms_fused_decide(a, f, r, i, j);
        if (threadIdx.x == 0) {
            decision = d;
            if (d != MS_UNDECIDED) ms_fused_record(a, r, d);
        }
    }
    __syncthreads();
    const int tx = threadIdx.x % MS_FUSED_CELL, ty = threadIdx.x / MS_FUSED_CELL;
    if (threadIdx.x / 32 * (32 / MS_FUSED_CELL) >= h) return; // a warp below the interior
    const bool mine = tx < w && ty < h;
    const int2 p = make_int2(r.x0 + 1 + (mine ? tx : 0), r.y0 + 1 + (mine ? ty : 0));
    MandelOrbit<T> o;
    o.start(a.view, p.x, p.y);
    bool done = !mine;
    int d = decision;
    if (d == MS_UNDECIDED) {
        // Iterate while the border is pending, looking at the decision every MS_FUSED_CHECK
        // steps; a warp done before it waits for it.
        while (true) {
            if (!done) done = o.run(a.view, MS_FUSED_CHECK);
            d = ms_fused_decision(a, f, r, i, j, &decision);
            if (d != MS_UNDECIDED || __all_sync(FULL_MASK, done)) break;
        }
        while (d == MS_UNDECIDED) {
            __nanosleep(256);
            d = ms_fused_decision(a, f, r, i, j, &decision);
        }
    }
    if (!mine) return;
    if (d == MS_EVALUATE) {
        if (!done) o.run(a.view, a.view.max_dwell);
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
    const int cell = tile - line_tiles;
    if (tile < line_tiles) ms_fused_unit<PlainDwells<T>>(a, f, tile * MS_WARPS + threadIdx.x / 32);
    else ms_fused_cell<T>(a, f, cell % (f.cols - 1), cell / (f.cols - 1));
}

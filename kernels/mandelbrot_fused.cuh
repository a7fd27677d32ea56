// mandelbrot_fused.cuh: Mariani-Silver in one grid of tiles. Included by mandelbrot.cu
// after its stores, records, warp helpers and ms_process; the decisions are those of
// ms_process on the same cells, so the CPU reference (src/mandelbrot/mariani_silver.rs)
// is unchanged. Two forms share the tiles, the units of the grid lines and their flags:
//
// - ms_fused, one level of MS_FUSED_CELL-pixel cells (the tuning up to 3840x2160): a cell
//   iterates its interior while its border is still being evaluated. The two-pass form
//   (every grid line, then one block per cell) waits for the slowest line pixel before
//   any interior starts, so a view with points at the max dwell both on a line and inside
//   a cell pays two such latencies where one thread per pixel pays one. Here nothing waits for the lines as a whole.
// - ms_one_grid, the other tunings above 3840x2160, plain dwells (cells refined inside
//   their blocks or by child grids): a cell waits for its four units, then ms_process
//   refines it. In two grids the cells waited for every line pixel, and the GPU idled
//   through the lines' last wave (4096^2, max dwell 2048: the lines over a third of the
//   time, at 71 % achieved occupancy). Up to 3840x2160 the cells are at most
//   a wave or two, there is little tail to fill, and the one grid measured slower (the
//   "nested" preset: up to 14 %); those views keep the two grids, and so do deep views
//   (refined at window sizes).
//
// The fused form:
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
//   (Every warp taking the first decision itself, with the cell's pixels laid out row
//   after row, measured 22 % more instructions at 4096x4096.)
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

// Pixel `k` of unit (i, j) of the grid lines of spacing s; false past the unit's last pixel.
__device__ __forceinline__ bool ms_unit_pixel(const MandelView& v, const MsFused& f, int s, int i, int j, int k, int2& p)
{
    const int x0 = min(i * s, v.width - 1), y0 = min(j * s, v.height - 1);
    const int top = i + 1 < f.cols ? min((i + 1) * s, v.width - 1) - x0 : 1;
    const int left = j + 1 < f.rows ? min((j + 1) * s, v.height - 1) - y0 - 1 : 0;
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
    if (ms_unit_pixel(a.view, f, MS_FUSED_CELL, u % f.cols, u / f.cols, threadIdx.x % 32, p))
        ms_eval_store<E>(a, p.x, p.y);
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

// This block's tile, from the frame's counter (block-wide).
__device__ __forceinline__ int ms_take_tile(const MsArgs& a)
{
    __shared__ int tile;
    if (threadIdx.x == 0) tile = (int)atomicAdd(&a.counters[MS_COUNT_TILES], 1u);
    __syncthreads();
    return tile;
}

// One block: its tile's units or cell.
template <typename T>
__device__ void ms_fused(const MsArgs& a, const MsFused& f)
{
    const int tile = ms_take_tile(a);
    const int line_tiles = div_up(f.cols * f.rows, MS_WARPS);
    const int cell = tile - line_tiles;
    if (tile < line_tiles) ms_fused_unit<PlainDwells<T>>(a, f, tile * MS_WARPS + threadIdx.x / 32);
    else ms_fused_cell<T>(a, f, cell % (f.cols - 1), cell / (f.cols - 1));
}

// ---- the nested refinement in one grid -------------------------------------------------
//
// The first tiles evaluate the units of the level-0 lines (spacing S_0; as many whole
// units as a block has threads for, a thread a pixel) and release their flags; each later
// tile is one level-0 cell, whose thread 0 waits for the cell's four units and whose block
// then runs ms_process on it, as mandel_ms's blocks do: the same decisions, the same
// records. Tiles come from a counter, so a cell waits only on tiles handed out before it,
// and a cell whose border is done starts while the last lines still run.
template <typename E>
__device__ void ms_one_grid(const MsArgs& a, const MsFused& f)
{
    const int tile = ms_take_tile(a);
    const int s = a.size[0], unit_pixels = 2 * s - 1, units = f.cols * f.rows;
    const int per_tile = max(1, MS_BLOCK / unit_pixels);
    const int line_tiles = div_up(units, per_tile);
    if (tile < line_tiles) {
        const int u0 = tile * per_tile, n_units = min(per_tile, units - u0);
        for (int k = threadIdx.x; k < n_units * unit_pixels; k += MS_BLOCK) {
            const int u = u0 + k / unit_pixels;
            int2 p;
            if (ms_unit_pixel(a.view, f, s, u % f.cols, u / f.cols, k % unit_pixels, p))
                ms_eval_store<E>(a, p.x, p.y);
        }
        __threadfence();
        __syncthreads();
        if (threadIdx.x < n_units) store_release_gpu(&f.flags[u0 + threadIdx.x], f.epoch);
        return;
    }
    const int cell = tile - line_tiles, i = cell % (f.cols - 1), j = cell / (f.cols - 1);
    if (threadIdx.x == 0)
        while (!ms_fused_acquire(f, i, j)) __nanosleep(128);
    __syncthreads();
    ms_process<E>(a, ms_cell(ms_image(a.view), s, i, j), 0);
}

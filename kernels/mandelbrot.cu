// mandelbrot.cu: escape-time dwells of the Mandelbrot set, per pixel or by Mariani-Silver
// refinement with dynamic parallelism (CDP2), and colouring into a mapped PBO.
//
// The per-pixel evaluation (dwell and continuous escape value) is evaluate_pixel<T> in
// mandelbrot_eval.cuh; every kernel exists for float and double (suffix _f32 / _f64).
// The refinement takes its pixels from a dwell source E (E::at): plain iteration in T, or
// perturbation around a reference orbit for deep views (perturbation.cuh: suffix _pt_dd
// for double-double, _pt_ext for extended exponents; continuous values too), so deep views
// are refined exactly as plain ones.
//
// mandel_per_pixel: one thread per pixel, blocks of MANDEL_BLOCK_X x MANDEL_BLOCK_Y.
// mandel_shift: a pan. The dwells (continuous values, distance estimates where given) of the
//   view moved by whole pixels, into other buffers: new pixel (x, y) is old (x + dx, y + dy)
//   where that lies inside, else MANDEL_PAN_UNSET. mandel_fill_* (plain views) and
//   perturb_fill_* (deep ones, perturbation.cu) then compute the marked pixels only.
// mandel_distance: the distance estimate of every escaped pixel of a computed frame (f64,
//   mandelbrot_eval.cuh: distance_at), one thread per pixel as mandel_per_pixel; a pass of
//   its own after any render, as refined cells have no derivative.
//
// Mariani-Silver (the CPU reference is src/mandelbrot/mariani_silver.rs; it makes the same
// decisions on the same rectangles). Rectangles share border lines with their neighbours
// (mandelbrot_rect.cuh); a level-k rectangle is a cell of the grid of spacing
// S_k = init_size / subdiv^k pixels (MsTuning, chosen by `cudalens bench --ms-sweep`).
//   1. mandel_grid_lines (host launch, one thread per pixel): the image's border and the
//      lines of spacing S_0.
//   2. mandel_ms (host launch, one block of MS_BLOCK threads per level-0 cell) and its
//      children run ms_process on a cell whose border is known:
//      - one dwell on the border: fill the interior (Coons patch of the border's continuous
//        values when they are wanted);
//      - else at the last level: evaluate the interior pixel by pixel;
//      - else split. A large cell (extent >= launch_min_pixels, or more last-level cells
//        than the block's lists hold) launches a child grid (fire-and-forget) that
//        evaluates the lines of spacing S_{k+1} inside it, one thread per pixel, and whose
//        first thread tail-launches one block per level k+1 cell (ms_cells), run after the
//        whole lines grid. A smaller cell is refined inside its block, breadth first: a
//        pass evaluates the lines of `lookahead` levels at once, then warps decide on the
//        cells of those levels from their borders (reads only), and the next pass fills and
//        evaluates what was decided together with the next lines. In a pass, the block fills
//        its fills (16 x 16 threads over each), then its warps take the pixels of what
//        iterates (lines, leaf interiors) from one list: with plain dwells a lane runs its
//        orbit MS_REFILL_STEPS steps at a time and idle lanes take new pixels together
//        (ms_run_refilled); other sources take 32 pixels a warp at a time. A cell whose
//        border is uniform is filled by its block at once.
//      Each pixel is written once, except lines evaluated ahead inside a cell that is then
//      filled (the fill overwrites them, as the reference fills them). Large fills and
//      leaves are child grids too. Child grids go to the fire-and-forget stream: CDP2 has
//      no device-side synchronize, and the host's stream completes only when every
//      descendant grid has.
//   Above 3840x2160 and with plain dwells, mandel_ms_one_grid runs steps 1 and 2 as one
//   grid: line tiles, then a block per level-0 cell that starts once its own border is
//   done, while the last lines still run (mandelbrot_fused.cuh). With one level of
//   MS_FUSED_CELL-pixel cells refined in their blocks (the tuning up to 3840x2160) and
//   plain dwells, mandel_ms_fused replaces steps 1 and 2: its cells do not wait for their
//   border but iterate their interiors at once and stop when the border proves uniform
//   (mandelbrot_fused.cuh).
//   Decisions are appended to a record buffer (x0 | kind << 16 | level << 20, y0, x1, y1)
//   when the host asks for them (the overlay), with counts per kind, the depth and the
//   evaluated pixels. Failed child launches and list overflows are counted: the host refuses
//   such a frame and the colour kernels draw nothing.
//
// mandel_colorize: out[i] = lut[clamp(dwell[i], 0, max_dwell)] (the LUT is built on the host).
// mandel_colorize_smooth: the palette's gradient at sqrt(nu) * density / 8 + offset,
//   interpolated in f32 with the Rust reference's operation order; the interior colour
//   where the dwell is max_dwell.
// Both write a linear buffer (the classic path's mapped pixel buffer) or, as *_surface, the
// display texture's array through a surface object (the external-memory path: no pixel
// buffer and no GL copy per frame). With distance estimates (non-null distance) a pixel
// nearer the set than shade_width pixels blends toward the interior colour (shade_distance,
// as src/mandelbrot/coloring.rs: shade).
#include "common.cuh"
#include "mandelbrot_eval.cuh"
#include "mandelbrot_rect.cuh"
#include "perturbation.cuh"
#include "cudalens_constants.h"

#define MS_MIN_THREADS 1536
#define MS_FUSED_CHECK 128
#define MS_REFILL_STEPS 64
#define MS_REFILL_IDLE 4
#define MS_FILL_COLS 16
#define MS_FILL_ROWS (MS_BLOCK / MS_FILL_COLS)
#define MS_ITEM_LINES 0
#define MS_ITEM_FILL 1
#define MS_ITEM_EVAL 2

// counters[]: records written (may exceed the capacity), failures, child grids launched,
// depth, then rectangles per kind (4 + kind), evaluated pixels (7) and the fused
// refinement's tiles handed out (8).

#define MS_WARPS (MS_BLOCK / 32)

// Launch bounds of a refinement block over dwell source E: at least E::MIN_THREADS threads
// resident per SM. For plain dwells that is MS_MIN_THREADS (6 blocks), which caps the
// registers at 40 (56 without): the in-block passes are latency-bound and gain from the
// resident warps (1920x1080 whole set, max dwell 1024: 0.287 -> 0.248 ms). The fused
// refinement takes the same bound: 8 blocks (32 registers) measured equal.
// Perturbation keeps its registers (capped, its double-double arithmetic would spill).
#define MS_BOUNDS(E) __launch_bounds__(MS_BLOCK, (E::MIN_THREADS + MS_BLOCK - 1) / MS_BLOCK)
#define FULL_MASK 0xffffffffu

struct MsArgs {
    int* dwells;
    float* smooth;           // continuous values, or null
    int4* records;           // overlay records, unused when record_capacity == 0
    unsigned int* counters;  // MS_COUNTERS
    MandelView view;
    int record_capacity;     // > 0: record decisions and count them
    int levels;
    int launch_min_pixels;
    int lookahead;
    int size[MS_MAX_LEVELS]; // spacing of each level
    PtArgs pt;               // the reference orbit of a deep view (perturbation sources only)
};

// The block's lists for in-block refinement.
struct MsShared {
    ushort4 active[MS_CELLS];      // cells whose inner lines the next pass evaluates
    ushort4 cand[2][MS_CELLS];     // cells to decide on, this level and the next
    ushort4 item_rect[MS_ITEMS];   // a pass's items: what iterates from the front, fills from the back
    int item_kv[MS_ITEMS];         // kind | value << 2 (spacing for lines, dwell for fills)
    int item_end[MS_ITEMS];        // inclusive prefix sums of the iterating items' pixel counts
    unsigned int n_pushed;         // items pushed this pass: iterating | fills << 16
    int n_active, n_cand[2], next_chunk;
    int wmin[MS_WARPS], wmax[MS_WARPS];
};

// ---- dwell sources ---------------------------------------------------------------------

// The contract's iteration in T (dwell and, when asked for, the continuous value).
template <typename T>
struct PlainDwells {
    static constexpr int MIN_THREADS = MS_MIN_THREADS;
    static constexpr bool RESUMABLE = true; // MandelOrbit<Real> runs a pixel in parts
    using Real = T;
    static __device__ __forceinline__ MandelPixel at(const MsArgs& a, int x, int y)
    {
        return evaluate_pixel<T>(a.view, x, y, a.smooth != nullptr);
    }
};

// Perturbation around a.pt's reference orbit, double-double differences.
struct PerturbedDd {
    static constexpr int MIN_THREADS = 1;
    static constexpr bool RESUMABLE = false;
    static __device__ __forceinline__ MandelPixel at(const MsArgs& a, int x, int y)
    {
        return pt_pixel_dd(a.pt, x, y, a.smooth != nullptr);
    }
};

// The same with extended exponents (pixels below 2^-960).
struct PerturbedExt {
    static constexpr int MIN_THREADS = 1;
    static constexpr bool RESUMABLE = false;
    static __device__ __forceinline__ MandelPixel at(const MsArgs& a, int x, int y)
    {
        return pt_pixel_ext(a.pt, x, y, a.smooth != nullptr);
    }
};

// ---- stores ----------------------------------------------------------------------------

// The whole image as a rectangle: its border lines are the image's edges.
__device__ __forceinline__ MsRect ms_image(const MandelView& v) { return ms_rect(0, 0, v.width - 1, v.height - 1); }

// Pixel (x, y)'s evaluated dwell (and continuous value, when wanted).
__device__ __forceinline__ void ms_store(const MsArgs& a, int x, int y, MandelPixel p)
{
    const size_t i = (size_t)y * a.view.width + x;
    a.dwells[i] = p.dwell;
    if (a.smooth) a.smooth[i] = p.smooth;
}

template <typename E>
__device__ __forceinline__ void ms_eval_store(const MsArgs& a, int x, int y)
{
    ms_store(a, x, y, E::at(a, x, y));
}

// The Coons patch of r's border values at (x, y), as src/mandelbrot/rect.rs computes it.
__device__ float ms_coons(const MsArgs& a, MsRect r, int x, int y)
{
    const float* v = a.smooth;
    const size_t w = a.view.width;
#define V(px, py) __ldcg(&v[(size_t)(py) * w + (px)])
    const float u = __fdiv_rn((float)(x - r.x0), (float)(r.x1 - r.x0));
    const float t = __fdiv_rn((float)(y - r.y0), (float)(r.y1 - r.y0));
    const float iu = __fsub_rn(1.0f, u), it = __fsub_rn(1.0f, t);
    const float sides = __fadd_rn(__fmul_rn(iu, V(r.x0, y)), __fmul_rn(u, V(r.x1, y)));
    const float ends = __fadd_rn(__fmul_rn(it, V(x, r.y0)), __fmul_rn(t, V(x, r.y1)));
    const float top = __fadd_rn(__fmul_rn(iu, V(r.x0, r.y0)), __fmul_rn(u, V(r.x1, r.y0)));
    const float bottom = __fadd_rn(__fmul_rn(iu, V(r.x0, r.y1)), __fmul_rn(u, V(r.x1, r.y1)));
#undef V
    return __fsub_rn(__fadd_rn(sides, ends), __fadd_rn(__fmul_rn(it, top), __fmul_rn(t, bottom)));
}

__device__ __forceinline__ void ms_fill_store(const MsArgs& a, MsRect r, int x, int y, int d)
{
    const size_t i = (size_t)y * a.view.width + x;
    a.dwells[i] = d;
    if (a.smooth) a.smooth[i] = d < a.view.max_dwell ? ms_coons(a, r, x, y) : (float)d;
}

// ---- records and counters --------------------------------------------------------------

__device__ void ms_record(const MsArgs& a, MsRect r, int kind, int level)
{
    if (a.record_capacity <= 0) return;
    atomicAdd(&a.counters[4 + kind], 1u);
    atomicMax(&a.counters[MS_COUNT_DEPTH], (unsigned int)(level + 1));
    const unsigned int i = atomicAdd(&a.counters[MS_COUNT_RECORDS], 1u);
    if (i < (unsigned int)a.record_capacity)
        a.records[i] = make_int4(r.x0 | (kind << 16) | (level << 20), r.y0, r.x1, r.y1);
}

__device__ __forceinline__ void ms_count_evaluated(const MsArgs& a, int pixels)
{
    if (a.record_capacity > 0 && pixels > 0) atomicAdd(&a.counters[MS_COUNT_EVALUATED], (unsigned int)pixels);
}

__device__ __forceinline__ void ms_fail(const MsArgs& a) { atomicAdd(&a.counters[MS_COUNT_FAILURES], 1u); }

// A child grid, launched by one thread: MS_LAUNCH(kernel, grid, block, stream, a, args...)
// with `a` the MsArgs, which is passed first and counts the launch or its failure.
// Device-side launches report failure (e.g. the pending-launch limit) only through
// cudaGetLastError. Built with MS_NO_CHILD_GRIDS (build.rs: the module mandelbrot_sanitize,
// plain code for racecheck, initcheck and synccheck, which do not support dynamic
// parallelism) nothing is launched and the rectangle counts as a failure, so the host
// refuses the frame: only tunings without child grids run there.
#ifdef MS_NO_CHILD_GRIDS
#define MS_LAUNCH(kernel, grid, block, stream, a, ...) ms_fail(a)
#else
__device__ __forceinline__ void ms_launched(const MsArgs& a)
{
    if (cudaGetLastError() != cudaSuccess) ms_fail(a);
    else atomicAdd(&a.counters[MS_COUNT_GRIDS], 1u);
}
#define MS_LAUNCH(kernel, grid, block, stream, a, ...)            \
    do {                                                         \
        kernel<<<(grid), (block), 0, (stream)>>>(a, __VA_ARGS__); \
        ms_launched(a);                                          \
    } while (0)
#endif

// ---- child grids -----------------------------------------------------------------------

__device__ __forceinline__ int ms_child_blocks(int pixels) { return max(1, min(div_up(pixels, MS_LINES_BLOCK), 4096)); }

__global__ void __launch_bounds__(MS_LINES_BLOCK) ms_fill_child(MsArgs a, MsRect r, int d)
{
    const int n = ms_interior_pixels(r);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int2 p = ms_interior_pixel(r, i);
        ms_fill_store(a, r, p.x, p.y, d);
    }
}

template <typename E>
__global__ void __launch_bounds__(MS_LINES_BLOCK) ms_eval_child(MsArgs a, MsRect r)
{
    const int n = ms_interior_pixels(r);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int2 p = ms_interior_pixel(r, i);
        ms_eval_store<E>(a, p.x, p.y);
    }
}

template <typename E>
__global__ void MS_BOUNDS(E) ms_cells(MsArgs a, MsRect parent, int level);

// Evaluates the lines of spacing S_level inside r, then refines r's level cells in a grid
// tail-launched after this one.
template <typename E>
__global__ void __launch_bounds__(MS_LINES_BLOCK) ms_lines_child(MsArgs a, MsRect r, int level)
{
    const int s = a.size[level];
    const int n = ms_line_count(r, s);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int2 p = ms_line_pixel(r, s, i);
        ms_eval_store<E>(a, p.x, p.y);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const int2 c = ms_cell_counts(r, s);
        MS_LAUNCH(ms_cells<E>, dim3(c.x, c.y), MS_BLOCK, cudaStreamTailLaunch, a, r, level);
    }
}

// ---- block-wide helpers ----------------------------------------------------------------

__device__ __forceinline__ int2 warp_minmax(int mn, int mx)
{
    for (int o = 16; o > 0; o >>= 1) {
        mn = min(mn, __shfl_xor_sync(FULL_MASK, mn, o));
        mx = max(mx, __shfl_xor_sync(FULL_MASK, mx, o));
    }
    return make_int2(mn, mx);
}

// Smallest and largest dwell on r's border, over the block, read through L2 (in the one
// grid the border was written by other blocks of the same grid).
__device__ int2 ms_block_border_minmax(const MsArgs& a, MsShared& sh, MsRect r)
{
    int mn = 0x7fffffff, mx = -0x7fffffff;
    const int n = ms_border_count(r);
    for (int i = threadIdx.x; i < n; i += MS_BLOCK) {
        const int2 p = ms_border_pixel(r, i);
        const int d = __ldcg(&a.dwells[(size_t)p.y * a.view.width + p.x]);
        mn = min(mn, d);
        mx = max(mx, d);
    }
    int2 m = warp_minmax(mn, mx);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        sh.wmin[warp] = m.x;
        sh.wmax[warp] = m.y;
    }
    __syncthreads();
    m = make_int2(sh.wmin[0], sh.wmax[0]);
    for (int w = 1; w < MS_WARPS; ++w) m = make_int2(min(m.x, sh.wmin[w]), max(m.y, sh.wmax[w]));
    __syncthreads();
    return m;
}

// The same over one warp, read through L2 (the fused refinement's borders are written by
// other blocks of the same grid).
__device__ __forceinline__ int2 ms_warp_border_minmax(const MsArgs& a, MsRect r)
{
    int mn = 0x7fffffff, mx = -0x7fffffff;
    const int n = ms_border_count(r);
    for (int i = threadIdx.x % 32; i < n; i += 32) {
        const int2 p = ms_border_pixel(r, i);
        const int d = __ldcg(&a.dwells[(size_t)p.y * a.view.width + p.x]);
        mn = min(mn, d);
        mx = max(mx, d);
    }
    return warp_minmax(mn, mx);
}

// Items that iterate (lines, leaf interiors) fill the list from the front, fills from the
// back; one counter holds both, so a push sees how full the list is.
__device__ __forceinline__ void ms_push_item(const MsArgs& a, MsShared& sh, MsRect r, int kind, int value)
{
    const bool fill = kind == MS_ITEM_FILL;
    const unsigned int pushed = atomicAdd(&sh.n_pushed, fill ? 1u << 16 : 1u);
    const int iterating = pushed & 0xffff, fills = pushed >> 16;
    if (iterating + fills >= MS_ITEMS) {
        ms_fail(a);
        return;
    }
    const int k = fill ? MS_ITEMS - 1 - fills : iterating;
    sh.item_rect[k] = ms_rect_pack(r);
    sh.item_kv[k] = kind | (value << 2);
}

// (iterating items, fills) of the pass; none when the list overflowed (the refinement
// counted a failure, so the host refuses the frame).
__device__ __forceinline__ int2 ms_item_counts(const MsShared& sh)
{
    const int iterating = sh.n_pushed & 0xffff, fills = sh.n_pushed >> 16;
    return iterating + fills > MS_ITEMS ? make_int2(0, 0) : make_int2(iterating, fills);
}

__device__ __forceinline__ void ms_push_rect(const MsArgs& a, ushort4* list, int* count, MsRect r)
{
    const int k = atomicAdd(count, 1);
    if (k >= MS_CELLS) ms_fail(a);
    else list[k] = ms_rect_pack(r);
}

__device__ void ms_push_cells(const MsArgs& a, MsRect r, int s, ushort4* list, int* count)
{
    const int2 c = ms_cell_counts(r, s);
    for (int j = 0; j < c.y; ++j)
        for (int i = 0; i < c.x; ++i) ms_push_rect(a, list, count, ms_cell(r, s, i, j));
}

// Pixels of iterating item k.
__device__ __forceinline__ int ms_item_pixels(const MsShared& sh, int k)
{
    const MsRect r = ms_rect_from(sh.item_rect[k]);
    const int kv = sh.item_kv[k];
    return (kv & 3) == MS_ITEM_LINES ? ms_line_count(r, kv >> 2) : ms_interior_pixels(r);
}

// Calls at(x, y) for this thread's pixels of a w x h interior, the whole block over it:
// thread t takes (t % MS_FILL_COLS, t / MS_FILL_COLS) + multiples of (MS_FILL_COLS,
// MS_FILL_ROWS), so a leaf-sized cell is one step and nothing is divided.
template <typename At>
__device__ __forceinline__ void ms_block_interior(int w, int h, At at)
{
    const int tx = threadIdx.x % MS_FILL_COLS, ty = threadIdx.x / MS_FILL_COLS;
#pragma unroll 1
    for (int y = ty; y < h; y += MS_FILL_ROWS)
#pragma unroll 1
        for (int x = tx; x < w; x += MS_FILL_COLS) at(x, y);
}

// Fills r's interior with dwell d, the whole block. Fills are most of the pixels above
// 4096x4096 and iterate nothing, so this loop is what they cost (Nsight Compute: through
// the work list, a shared atomic, a search and a division per 32 pixels). With dwells only,
// a loop of its own without the continuous values' test and addressing per pixel.
__device__ void ms_fill_block(const MsArgs& a, MsRect r, int d)
{
    const int w = ms_interior_w(r), h = ms_interior_h(r);
    if (a.smooth) {
        ms_block_interior(w, h, [&](int x, int y) { ms_fill_store(a, r, r.x0 + 1 + x, r.y0 + 1 + y, d); });
        return;
    }
    const size_t width = a.view.width;
    int* dwells = a.dwells + (size_t)(r.y0 + 1) * width + r.x0 + 1;
    ms_block_interior(w, h, [&](int x, int y) { dwells[y * width + x] = d; });
}

// Pixel idx of the iterating items, which lies in item k.
__device__ __forceinline__ int2 ms_item_pixel_in(const MsShared& sh, int k, int idx)
{
    const int local = idx - (k > 0 ? sh.item_end[k - 1] : 0);
    const MsRect r = ms_rect_from(sh.item_rect[k]);
    const int kv = sh.item_kv[k];
    return (kv & 3) == MS_ITEM_LINES ? ms_line_pixel(r, kv >> 2, local) : ms_interior_pixel(r, local);
}

// Pixel idx of the iterating items (0 <= idx < the last prefix sum), by a search.
__device__ __forceinline__ int2 ms_item_pixel(const MsShared& sh, int n_items, int idx)
{
    int lo = 0, hi = n_items - 1;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (sh.item_end[mid] > idx) hi = mid;
        else lo = mid + 1;
    }
    return ms_item_pixel_in(sh, lo, idx);
}

// The iterating pixels of a pass with plain dwells, each lane refilled: a lane holds one
// pixel's orbit and runs it MS_REFILL_STEPS steps at a time; when MS_REFILL_IDLE lanes of
// its warp are done (or none is busy), the idle lanes take the next pixels of the block's
// list together (one shared atomic for the warp). A lane's pixels only go forward in the
// list, so it finds a pixel's item by stepping on from its last. The lines and leaves are
// where the set's boundary is, so neighbouring pixels' dwells differ most there: a warp
// of 32 fixed pixels iterates as long as its slowest one, with 18 of 32 lanes busy on
// average at 16384^2/512. A resumed orbit ends as an uninterrupted one
// (MandelOrbit).
template <typename T>
__device__ void ms_run_refilled(const MsArgs& a, MsShared& sh, int total)
{
    const int lane = threadIdx.x % 32;
    const bool want_smooth = a.smooth != nullptr;
    MandelOrbit<T> o{};
    int2 p = make_int2(-1, 0); // the lane's pixel; x < 0: none
    int item = 0;              // the item of the lane's last pixel: its pixels only go forward
    bool more = true;          // the list may still have pixels (warp-uniform)
    while (true) {
        const unsigned int idle = __ballot_sync(FULL_MASK, p.x < 0);
        const int n_idle = __popc(idle);
        if (n_idle == 32 && !more) break;
        if (more && (n_idle >= MS_REFILL_IDLE || n_idle == 32)) {
            const int leader = __ffs(idle) - 1;
            int base = 0;
            if (lane == leader) base = atomicAdd(&sh.next_chunk, n_idle);
            base = __shfl_sync(FULL_MASK, base, leader);
            more = base + n_idle < total;
            const int idx = base + __popc(idle & ((1u << lane) - 1));
            if (p.x < 0 && idx < total) {
                while (sh.item_end[item] <= idx) ++item;
                p = ms_item_pixel_in(sh, item, idx);
                o.start(a.view, p.x, p.y);
            }
        }
        if (p.x >= 0 && o.run(a.view, MS_REFILL_STEPS)) {
            ms_store(a, p.x, p.y, o.result(a.view, want_smooth));
            p.x = -1;
        }
    }
}

// Runs the pass's items: the fills, then what iterates (lines, leaf interiors), whose pixel
// counts warp 0 sums; the warps then take those pixels until none are left, lane by lane
// with plain dwells (ms_run_refilled), else 32 at a time.
template <typename E>
__device__ void ms_run_items(const MsArgs& a, MsShared& sh)
{
    const int2 counts = ms_item_counts(sh);
    const int n_items = counts.x;
    const int lane = threadIdx.x % 32;
    for (int k = MS_ITEMS - 1; k >= MS_ITEMS - counts.y; --k)
        ms_fill_block(a, ms_rect_from(sh.item_rect[k]), sh.item_kv[k] >> 2);
    if (threadIdx.x < 32) {
        int carry = 0;
        for (int base = 0; base < n_items; base += 32) {
            const int k = base + lane;
            int v = k < n_items ? ms_item_pixels(sh, k) : 0;
            for (int o = 1; o < 32; o <<= 1) {
                const int u = __shfl_up_sync(FULL_MASK, v, o);
                if (lane >= o) v += u;
            }
            if (k < n_items) sh.item_end[k] = carry + v;
            carry += __shfl_sync(FULL_MASK, v, 31);
        }
        if (lane == 0) sh.next_chunk = 0;
    }
    __syncthreads();
    const int total = n_items > 0 ? sh.item_end[n_items - 1] : 0;
    if constexpr (E::RESUMABLE) {
        ms_run_refilled<typename E::Real>(a, sh, total);
    } else {
        while (true) {
            int base = 0;
            if (lane == 0) base = atomicAdd(&sh.next_chunk, 32);
            base = __shfl_sync(FULL_MASK, base, 0);
            if (base >= total) break;
            const int idx = base + lane;
            if (idx >= total) continue;
            const int2 p = ms_item_pixel(sh, n_items, idx);
            ms_eval_store<E>(a, p.x, p.y);
        }
    }
    __syncthreads();
}

// Decides on the candidates of level j (warp per cell): fills and leaves become items of
// the next pass; split cells add their cells to the next level's candidates (j < n) or
// become active (j == n, their lines are the next pass's).
__device__ void ms_decide(const MsArgs& a, MsShared& sh, int cur, int j, int n)
{
    const int last = a.levels - 1;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int count = min(sh.n_cand[cur], MS_CELLS);
    for (int c = warp; c < count; c += MS_WARPS) {
        const MsRect r = ms_rect_from(sh.cand[cur][c]);
        if (ms_interior_pixels(r) == 0) continue;
        const int2 m = ms_warp_border_minmax(a, r);
        if (lane == 0) {
            if (m.x == m.y) {
                ms_record(a, r, MS_KIND_FILL, j);
                ms_push_item(a, sh, r, MS_ITEM_FILL, m.x);
            } else if (j == last) {
                ms_record(a, r, MS_KIND_LEAF, j);
                ms_count_evaluated(a, ms_interior_pixels(r));
                ms_push_item(a, sh, r, MS_ITEM_EVAL, 0);
            } else {
                ms_record(a, r, MS_KIND_SPLIT, j);
                if (j < n) ms_push_cells(a, r, a.size[j + 1], sh.cand[cur ^ 1], &sh.n_cand[cur ^ 1]);
                else ms_push_rect(a, sh.active, &sh.n_active, r);
            }
        }
        __syncwarp();
    }
}

// In-block refinement of the active cells (level `level`) after the pending items.
template <typename E>
__device__ void ms_in_block(const MsArgs& a, MsShared& sh, int level)
{
    const int last = a.levels - 1;
    while (true) {
        __syncthreads();
        const int n = min(level + a.lookahead, last);
        const int n_active = min(sh.n_active, MS_CELLS);
        for (int i = threadIdx.x; i < n_active; i += MS_BLOCK) {
            const MsRect r = ms_rect_from(sh.active[i]);
            ms_count_evaluated(a, ms_line_count(r, a.size[n]));
            ms_push_item(a, sh, r, MS_ITEM_LINES, a.size[n]);
        }
        __syncthreads();
        ms_run_items<E>(a, sh);
        if (n_active == 0) return;
        if (threadIdx.x == 0) {
            sh.n_pushed = 0;
            sh.n_cand[0] = 0;
        }
        __syncthreads();
        for (int i = threadIdx.x; i < n_active; i += MS_BLOCK)
            ms_push_cells(a, ms_rect_from(sh.active[i]), a.size[level + 1], sh.cand[0], &sh.n_cand[0]);
        __syncthreads();
        if (threadIdx.x == 0) sh.n_active = 0;
        int cur = 0;
        for (int j = level + 1; j <= n; ++j) {
            if (threadIdx.x == 0) sh.n_cand[cur ^ 1] = 0;
            __syncthreads();
            ms_decide(a, sh, cur, j, n);
            __syncthreads();
            cur ^= 1;
        }
        level = n;
    }
}

// A cell whose border is known (the whole block works on it).
template <typename E>
__device__ void ms_process(const MsArgs& a, MsRect c, int level)
{
    __shared__ MsShared sh;
    const int interior = ms_interior_pixels(c);
    if (interior == 0) return;
    const int2 m = ms_block_border_minmax(a, sh, c);
    const int last = a.levels - 1;
    const bool first = threadIdx.x == 0;
    if (first) {
        sh.n_active = 0;
        sh.n_pushed = 0;
    }
    if (m.x == m.y || level == last) {
        const bool fill = m.x == m.y;
        if (first) {
            ms_record(a, c, fill ? MS_KIND_FILL : MS_KIND_LEAF, level);
            if (!fill) ms_count_evaluated(a, interior);
        }
        if (interior >= a.launch_min_pixels) {
            if (first) {
                if (fill) MS_LAUNCH(ms_fill_child, ms_child_blocks(interior), MS_LINES_BLOCK, cudaStreamFireAndForget, a, c, m.x);
                else MS_LAUNCH(ms_eval_child<E>, ms_child_blocks(interior), MS_LINES_BLOCK, cudaStreamFireAndForget, a, c);
            }
            return;
        }
        if (fill) {
            ms_fill_block(a, c, m.x);
            return;
        }
        if (first) ms_push_item(a, sh, c, MS_ITEM_EVAL, 0);
        ms_in_block<E>(a, sh, level);
        return;
    }
    if (first) ms_record(a, c, MS_KIND_SPLIT, level);
    const int2 leaves = ms_cell_counts(c, a.size[last]);
    if (ms_extent(c) >= a.launch_min_pixels || leaves.x * leaves.y > MS_CELLS) {
        if (first) {
            const int lines = ms_line_count(c, a.size[level + 1]);
            ms_count_evaluated(a, lines);
            MS_LAUNCH(ms_lines_child<E>, ms_child_blocks(lines), MS_LINES_BLOCK, cudaStreamFireAndForget, a, c, level + 1);
        }
        return;
    }
    if (first) sh.active[sh.n_active++] = ms_rect_pack(c);
    ms_in_block<E>(a, sh, level);
}

template <typename E>
__global__ void MS_BOUNDS(E) ms_cells(MsArgs a, MsRect parent, int level)
{
    ms_process<E>(a, ms_cell(parent, a.size[level], blockIdx.x, blockIdx.y), level);
}

#include "mandelbrot_fused.cuh"

// ---- per pixel -------------------------------------------------------------------------

template <typename T>
__device__ void per_pixel(int* dwells, float* smooth, const MandelView& v)
{
    const int x = blockIdx.x * MANDEL_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * MANDEL_BLOCK_Y + threadIdx.y;
    if (x >= v.width || y >= v.height) return;
    const MandelPixel p = evaluate_pixel<T>(v, x, y, smooth != nullptr);
    const size_t i = (size_t)y * v.width + x;
    dwells[i] = p.dwell;
    if (smooth) smooth[i] = p.smooth;
}

// Mirror of MandelShiftArgs in src/pipeline/explorer/mandelbrot_kernels.rs.
struct MandelShift {
    const int* dwells;
    const float* smooth;    // or null
    const float* distance;  // or null
    int* to_dwells;
    float* to_smooth;       // null with smooth
    float* to_distance;     // null with distance
    int width, height, dx, dy;
};

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y) mandel_shift(MandelShift a)
{
    const int x = blockIdx.x * MANDEL_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * MANDEL_BLOCK_Y + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    const size_t i = (size_t)y * a.width + x;
    const int ox = x + a.dx, oy = y + a.dy;
    if (ox < 0 || oy < 0 || ox >= a.width || oy >= a.height) {
        a.to_dwells[i] = MANDEL_PAN_UNSET;
        return;
    }
    const size_t j = (size_t)oy * a.width + ox;
    a.to_dwells[i] = a.dwells[j];
    if (a.smooth) a.to_smooth[i] = a.smooth[j];
    if (a.distance) a.to_distance[i] = a.distance[j];
}

// The pixels a pan exposed (dwell MANDEL_PAN_UNSET): as mandel_per_pixel, and their distance
// estimates where `distance` is given.
template <typename T>
__device__ void pan_fill(int* dwells, float* smooth, float* distance, const MandelView& v)
{
    const int x = blockIdx.x * MANDEL_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * MANDEL_BLOCK_Y + threadIdx.y;
    if (x >= v.width || y >= v.height) return;
    const size_t i = (size_t)y * v.width + x;
    if (dwells[i] != MANDEL_PAN_UNSET) return;
    const MandelPixel p = evaluate_pixel<T>(v, x, y, smooth != nullptr);
    dwells[i] = p.dwell;
    if (smooth) smooth[i] = p.smooth;
    if (distance) distance[i] = p.dwell < v.max_dwell ? distance_at(v, x, y) : 0.0f;
}

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_distance(const int* __restrict__ dwells, float* __restrict__ distance, MandelView v)
{
    const int x = blockIdx.x * MANDEL_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * MANDEL_BLOCK_Y + threadIdx.y;
    if (x >= v.width || y >= v.height) return;
    const size_t i = (size_t)y * v.width + x;
    distance[i] = dwells[i] < v.max_dwell ? distance_at(v, x, y) : 0.0f;
}

template <typename E>
__device__ void grid_lines(const MsArgs& a)
{
    const int w = a.view.width, h = a.view.height, s = a.size[0];
    const int n = ms_grid_count(w, h, s);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int2 p = ms_grid_pixel(w, h, s, i);
        ms_eval_store<E>(a, p.x, p.y);
    }
}

#define MANDEL_PER_PIXEL_ENTRY_POINT(T, SUFFIX)                                                         \
    extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)                      \
    mandel_per_pixel_##SUFFIX(int* dwells, float* smooth, MandelView v)                                 \
    {                                                                                                   \
        per_pixel<T>(dwells, smooth, v);                                                                \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)                      \
    mandel_fill_##SUFFIX(int* dwells, float* smooth, float* distance, MandelView v)                     \
    {                                                                                                   \
        pan_fill<T>(dwells, smooth, distance, v);                                                       \
    }

#define MANDEL_MS_ENTRY_POINTS(E, SUFFIX)                                                               \
    /* Step 1: one thread per pixel of the border and the level-0 lines (grid-stride). */              \
    extern "C" __global__ void __launch_bounds__(MS_LINES_BLOCK) mandel_grid_lines_##SUFFIX(MsArgs a)  \
    {                                                                                                   \
        grid_lines<E>(a);                                                                               \
    }                                                                                                   \
    /* Step 2: one block per level-0 cell. */                                                          \
    extern "C" __global__ void MS_BOUNDS(E) mandel_ms_##SUFFIX(MsArgs a)                               \
    {                                                                                                   \
        ms_process<E>(a, ms_cell(ms_image(a.view), a.size[0], blockIdx.x, blockIdx.y), 0);             \
    }

#define MANDEL_ONE_GRID_ENTRY_POINT(T, SUFFIX)                                                          \
    /* Steps 1 and 2 in one grid, above 3840x2160 (mandelbrot_fused.cuh). */                          \
    extern "C" __global__ void MS_BOUNDS(PlainDwells<T>) mandel_ms_one_grid_##SUFFIX(MsArgs a, MsFused f) \
    {                                                                                                   \
        ms_one_grid<PlainDwells<T>>(a, f);                                                              \
    }

#define MANDEL_FUSED_ENTRY_POINT(T, SUFFIX)                                                             \
    /* One level of MS_FUSED_CELL-pixel cells in one grid (mandelbrot_fused.cuh). */                  \
    extern "C" __global__ void MS_BOUNDS(PlainDwells<T>) mandel_ms_fused_##SUFFIX(MsArgs a, MsFused f) \
    {                                                                                                   \
        ms_fused<T>(a, f);                                                                              \
    }

MANDEL_PER_PIXEL_ENTRY_POINT(float, f32)
MANDEL_PER_PIXEL_ENTRY_POINT(double, f64)
MANDEL_MS_ENTRY_POINTS(PlainDwells<float>, f32)
MANDEL_MS_ENTRY_POINTS(PlainDwells<double>, f64)
MANDEL_MS_ENTRY_POINTS(PerturbedDd, pt_dd)
MANDEL_MS_ENTRY_POINTS(PerturbedExt, pt_ext)
MANDEL_ONE_GRID_ENTRY_POINT(float, f32)
MANDEL_ONE_GRID_ENTRY_POINT(double, f64)
MANDEL_FUSED_ENTRY_POINT(float, f32)
MANDEL_FUSED_ENTRY_POINT(double, f64)

// ---- colour ----------------------------------------------------------------------------

// Where the colour kernels write: a linear W x H buffer (the classic path's mapped pixel
// buffer), or a surface over the display texture's array (the external-memory path).
struct LinearOut {
    uchar4* p;
    int width;
    __device__ __forceinline__ void store(int x, int y, uchar4 v) const { p[(size_t)y * width + x] = v; }
};

struct SurfaceOut {
    cudaSurfaceObject_t s;
    __device__ __forceinline__ void store(int x, int y, uchar4 v) const { store_pixel(s, x, y, v); }
};

// This thread's pixel, or false when it is outside or the refinement counted a failure.
__device__ __forceinline__ bool colour_pixel(int width, int height, const unsigned int* failures, int& x, int& y)
{
    x = blockIdx.x * MANDEL_BLOCK_X + threadIdx.x;
    y = blockIdx.y * MANDEL_BLOCK_Y + threadIdx.y;
    return x < width && y < height && failures[MS_COUNT_FAILURES] == 0;
}

// c blended toward the interior colour for a pixel de pixels from the set (coloring.rs: shade).
__device__ __forceinline__ uchar4 shade_distance(uchar4 c, uchar4 interior, float de, float width)
{
    float s = __fdiv_rn(de, width);
    if (!(s < 1.0f)) return c;
    if (!(s > 0.0f)) s = 0.0f;
    const float4 a = to_float4(interior), b = to_float4(c);
    const auto mix = [s](float p, float q) { return to_u8(__fadd_rn(p, __fmul_rn(__fsub_rn(q, p), s))); };
    return make_uchar4(mix(a.x, b.x), mix(a.y, b.y), mix(a.z, b.z), mix(a.w, b.w));
}

// Distance shading's arguments: the estimates (null: none) and the band's width in pixels.
struct Shading {
    const float* distance;
    float width;
    __device__ __forceinline__ uchar4 apply(uchar4 c, uchar4 interior, size_t i) const
    {
        return distance ? shade_distance(c, interior, distance[i], width) : c;
    }
};

template <typename Out>
__device__ void colorize_lut(const int* __restrict__ dwells, const uchar4* __restrict__ lut, Out out, int width,
                             int height, int max_dwell, Shading shading, const unsigned int* __restrict__ failures)
{
    int x, y;
    if (!colour_pixel(width, height, failures, x, y)) return;
    const size_t i = (size_t)y * width + x;
    out.store(x, y, shading.apply(lut[clamp_int(dwells[i], 0, max_dwell)], lut[max_dwell], i));
}

template <typename Out>
__device__ void colorize_smooth(const int* __restrict__ dwells, const float* __restrict__ smooth,
                                const uchar4* __restrict__ gradient, int steps, Out out, int width, int height,
                                int max_dwell, float density, float offset, unsigned int interior_rgba,
                                Shading shading, const unsigned int* __restrict__ failures)
{
    int x, y;
    if (!colour_pixel(width, height, failures, x, y)) return;
    const size_t i = (size_t)y * width + x;
    const uchar4 interior = make_uchar4(interior_rgba & 0xff, (interior_rgba >> 8) & 0xff,
                                        (interior_rgba >> 16) & 0xff, interior_rgba >> 24);
    if (clamp_int(dwells[i], 0, max_dwell) == max_dwell) {
        out.store(x, y, interior);
        return;
    }
    float v = smooth[i];
    if (!(v >= 0.0f)) v = 0.0f;
    const float pos = __fadd_rn(__fmul_rn(__fmul_rn(sqrtf(v), density), 0.125f), offset);
    const float t = __fsub_rn(pos, floorf(pos));
    const float g = __fmul_rn(t, (float)steps);
    const int i0 = min((int)g, steps - 1);
    const float f = __fsub_rn(g, (float)i0);
    const float4 c0 = to_float4(gradient[i0]), c1 = to_float4(gradient[(i0 + 1) % steps]);
    const auto mix = [f](float p, float q) { return to_u8(__fadd_rn(p, __fmul_rn(__fsub_rn(q, p), f))); };
    const uchar4 c = make_uchar4(mix(c0.x, c1.x), mix(c0.y, c1.y), mix(c0.z, c1.z), mix(c0.w, c1.w));
    out.store(x, y, shading.apply(c, interior, i));
}

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_colorize(const int* __restrict__ dwells, const uchar4* __restrict__ lut, uchar4* out, int width, int height,
                int max_dwell, Shading shading, const unsigned int* __restrict__ failures)
{
    colorize_lut(dwells, lut, LinearOut{out, width}, width, height, max_dwell, shading, failures);
}

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_colorize_surface(const int* __restrict__ dwells, const uchar4* __restrict__ lut, cudaSurfaceObject_t out,
                        int width, int height, int max_dwell, Shading shading,
                        const unsigned int* __restrict__ failures)
{
    colorize_lut(dwells, lut, SurfaceOut{out}, width, height, max_dwell, shading, failures);
}

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_colorize_smooth(const int* __restrict__ dwells, const float* __restrict__ smooth,
                       const uchar4* __restrict__ gradient, int steps, uchar4* out, int width, int height,
                       int max_dwell, float density, float offset, unsigned int interior, Shading shading,
                       const unsigned int* __restrict__ failures)
{
    colorize_smooth(dwells, smooth, gradient, steps, LinearOut{out, width}, width, height, max_dwell, density, offset,
                    interior, shading, failures);
}

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_colorize_smooth_surface(const int* __restrict__ dwells, const float* __restrict__ smooth,
                               const uchar4* __restrict__ gradient, int steps, cudaSurfaceObject_t out, int width,
                               int height, int max_dwell, float density, float offset, unsigned int interior,
                               Shading shading, const unsigned int* __restrict__ failures)
{
    colorize_smooth(dwells, smooth, gradient, steps, SurfaceOut{out}, width, height, max_dwell, density, offset,
                    interior, shading, failures);
}

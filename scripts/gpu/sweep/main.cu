// main.cu: the kernel-variant sweep. For each image size, runs the base commit's kernels
// (the "before" and the reference outputs) and every variant of this branch's kernels on the
// same random RGBA8 CUDA arrays (block-linear, like the GL textures), times them with CUDA
// events (median of N after warm-up) and prints each one's time, its effective bandwidth as
// a fraction of a linear cudaMemcpy of the same bytes, and its largest difference from the
// base kernel's output. Usage: sweep [CSV] [RUNS]; CUDALENS_SWEEP_QUICK=1 runs 8K once (ncu);
// CUDALENS_SWEEP_CASES=box,sobel,... keeps those cases only (copy, transpose, sobel,
// histogram, box, gauss, median; the probes always run).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>
#include "sweep.h"

struct Image2D {
    cudaArray_t array = nullptr;
    cudaTextureObject_t tex = 0;
    cudaSurfaceObject_t surf = 0;
    int w = 0, h = 0;
};

static Image2D make_image(int w, int h)
{
    Image2D im;
    im.w = w;
    im.h = h;
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
    CHECK(cudaMallocArray(&im.array, &desc, w, h, cudaArraySurfaceLoadStore));
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = im.array;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 0;
    CHECK(cudaCreateTextureObject(&im.tex, &res, &td, nullptr));
    CHECK(cudaCreateSurfaceObject(&im.surf, &res));
    return im;
}

static void free_image(Image2D& im)
{
    cudaDestroyTextureObject(im.tex);
    cudaDestroySurfaceObject(im.surf);
    cudaFreeArray(im.array);
}

static void upload(Image2D& im, const std::vector<uint8_t>& px)
{
    CHECK(cudaMemcpy2DToArray(im.array, 0, 0, px.data(), im.w * 4, im.w * 4, im.h, cudaMemcpyHostToDevice));
}

static std::vector<uint8_t> download(const Image2D& im)
{
    std::vector<uint8_t> px((size_t)im.w * im.h * 4);
    CHECK(cudaMemcpy2DFromArray(px.data(), im.w * 4, im.array, 0, 0, im.w * 4, im.h, cudaMemcpyDeviceToHost));
    return px;
}

static void poison(Image2D& im)
{
    upload(im, std::vector<uint8_t>((size_t)im.w * im.h * 4, 0xAB));
}

// An image whose values change every 64 pixels (neighbours share histogram bins, and
// the Sobel gradient is zero inside the squares).
static std::vector<uint8_t> smooth_pixels(int w, int h)
{
    std::vector<uint8_t> flat((size_t)w * h * 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 4; ++c) flat[((size_t)y * w + x) * 4 + c] = (uint8_t)((x / 64 + y / 64 + 40 * c) & 255);
    return flat;
}

static int max_diff(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b)
{
    if (a.size() != b.size()) return 9999;
    int m = 0;
    for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs((int)a[i] - (int)b[i]));
    return m;
}

static int runs_global = 20;

// Whether case family `name` runs (CUDALENS_SWEEP_CASES unset: all of them).
static bool wanted(const char* name)
{
    const char* cases = getenv("CUDALENS_SWEEP_CASES");
    if (!cases || !*cases) return true;
    std::string list = std::string(",") + cases + ",";
    return list.find(std::string(",") + name + ",") != std::string::npos;
}
static bool quick = false;

static double time_ms(const std::function<void()>& fn, cudaStream_t s)
{
    int runs = quick ? 1 : runs_global;
    for (int i = 0; i < (quick ? 0 : 2); ++i) fn();
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        CHECK(cudaEventRecord(a, s));
        fn();
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// Effective-bandwidth helpers: a 16-byte-load linear copy and the array <-> linear mixes,
// to see whether array reads or surface writes limit a kernel.
__global__ void linear_copy16(const uint4* __restrict__ s, uint4* __restrict__ d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) d[i] = s[i];
}
__global__ void array_to_linear(cudaTextureObject_t s, uchar4* d, int w, int h)
{
    int x = blockIdx.x * 32 + threadIdx.x;
    int y0 = blockIdx.y * 32 + threadIdx.y;
    uchar4 p[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) p[r] = tex2D<uchar4>(s, x + 0.5f, y0 + r * 8 + 0.5f);
#pragma unroll
    for (int r = 0; r < 4; ++r)
        if (x < w && y0 + r * 8 < h) d[(size_t)(y0 + r * 8) * w + x] = p[r];
}
__global__ void linear_to_array(const uchar4* __restrict__ s, cudaSurfaceObject_t d, int w, int h)
{
    int x = blockIdx.x * 32 + threadIdx.x;
    int y0 = blockIdx.y * 32 + threadIdx.y;
    uchar4 p[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) p[r] = (x < w && y0 + r * 8 < h) ? s[(size_t)(y0 + r * 8) * w + x] : make_uchar4(0, 0, 0, 0);
#pragma unroll
    for (int r = 0; r < 4; ++r)
        if (x < w && y0 + r * 8 < h) surf2Dwrite(p[r], d, x * 4, y0 + r * 8);
}

struct Sweep {
    FILE* csv;
    int w, h;
    double copy_ms;
    double image_bytes() const { return 4.0 * w * h; }
    void row(const char* kase, const std::string& variant, double ms, double bytes, int diff, int tol)
    {
        double frac = (bytes / ms) / (2.0 * image_bytes() / copy_ms);
        printf("%5dx%-5d %-22s %-28s %9.4f ms %5.0f %%  diff %d%s\n", w, h, kase, variant.c_str(), ms, frac * 100.0, diff,
               diff > tol ? "  FAIL" : "");
        if (csv) fprintf(csv, "%d,%d,%s,%s,%.5f,%.4f,%d\n", w, h, kase, variant.c_str(), ms, frac, diff);
        fflush(stdout);
    }
};

static std::vector<float> gaussian_weights(float sigma, int radius)
{
    std::vector<double> raw;
    double total = 0;
    for (int x = -radius; x <= radius; ++x) {
        double v = std::exp(-(double)(x * x) / (2.0 * (double)sigma * (double)sigma));
        raw.push_back(v);
        total += v;
    }
    std::vector<float> w;
    for (double v : raw) w.push_back((float)(v / total));
    return w;
}

static void run_size(int w, int h, FILE* csv, int sm_count)
{
    cudaStream_t s = 0;
    std::vector<uint8_t> px((size_t)w * h * 4);
    std::mt19937_64 rng(42);
    for (auto& b : px) b = (uint8_t)rng();
    Image2D src = make_image(w, h), ref = make_image(w, h), out = make_image(w, h);
    Image2D ref_t = make_image(h, w), out_t = make_image(h, w);
    upload(src, px);
    size_t bytes = (size_t)w * h * 4;
    void *lin_a, *lin_b, *scratch;
    unsigned int* bins;
    CHECK(cudaMalloc(&lin_a, bytes));
    CHECK(cudaMalloc(&lin_b, bytes));
    CHECK(cudaMalloc(&scratch, bytes * 4));
    CHECK(cudaMalloc(&bins, 2 * 1024 * sizeof(unsigned int)));
    CHECK(cudaMemcpy(lin_a, px.data(), bytes, cudaMemcpyHostToDevice));
    Sweep sw{csv, w, h, 0};
    sw.copy_ms = time_ms([&] { CHECK(cudaMemcpyAsync(lin_b, lin_a, bytes, cudaMemcpyDeviceToDevice, s)); }, s);
    printf("%dx%d: cudaMemcpy of %zu bytes %.4f ms = %.0f GB/s (read + write)\n", w, h, bytes, sw.copy_ms,
           2.0 * bytes / sw.copy_ms / 1e6);

    Args a{};
    a.src = src.tex;
    a.w = w;
    a.h = h;
    a.scale = 1.0f;
    a.scratch = scratch;
    a.sm_count = sm_count;
    a.stream = s;
    const double rw = 2.0 * bytes;

    // Where the bytes go: linear, array reads, surface writes.
    {
        size_t n = bytes / 16;
        double ms = time_ms([&] { linear_copy16<<<sm_count * 8, 512, 0, s>>>((const uint4*)lin_a, (uint4*)lin_b, n); }, s);
        sw.row("probe", "linear 16B copy kernel", ms, rw, 0, 0);
        dim3 g((w + 31) / 32, (h + 31) / 32);
        ms = time_ms([&] { array_to_linear<<<g, dim3(32, 8), 0, s>>>(src.tex, (uchar4*)lin_b, w, h); }, s);
        sw.row("probe", "array tex -> linear", ms, rw, 0, 0);
        ms = time_ms([&] { linear_to_array<<<g, dim3(32, 8), 0, s>>>((const uchar4*)lin_a, out.surf, w, h); }, s);
        sw.row("probe", "linear -> array surf", ms, rw, 0, 0);
    }
    // Copy.
    if (wanted("copy")) {
        double ms = time_ms([&] {
            CHECK(cudaMemcpy2DArrayToArray(ref.array, 0, 0, src.array, 0, 0, w * 4, h, cudaMemcpyDeviceToDevice));
        }, s);
        sw.row("copy", "before: cuMemcpy2D", ms, rw, 0, 0);
        for (auto& v : copy_variants()) {
            poison(out);
            a.dst = out.surf;
            ms = time_ms([&] { v.fn(a, v.param); }, s);
            sw.row("copy", v.name, ms, rw, max_diff(download(out), px), 0);
        }
    }
    // Transpose.
    if (wanted("transpose")) {
        a.dst = ref_t.surf;
        double ms = time_ms([&] { old_transpose(a, 0); }, s);
        auto want = download(ref_t);
        sw.row("transpose", "before", ms, rw, 0, 0);
        for (auto& v : transpose_variants()) {
            poison(out_t);
            a.dst = out_t.surf;
            ms = time_ms([&] { v.fn(a, v.param); }, s);
            sw.row("transpose", v.name, ms, rw, max_diff(download(out_t), want), 0);
        }
    }
    // Sobel, on the random image and on the smooth one (flat areas: zero gradients).
    for (int smooth = 0; smooth < 2 && wanted("sobel"); ++smooth) {
        const char* kase = smooth ? "sobel smooth" : "sobel";
        Image2D flat;
        if (smooth) {
            flat = make_image(w, h);
            upload(flat, smooth_pixels(w, h));
            a.src = flat.tex;
        }
        a.dst = ref.surf;
        double ms = time_ms([&] { old_sobel(a, 0); }, s);
        auto want = download(ref);
        sw.row(kase, "before", ms, rw, 0, 0);
        for (auto& v : sobel_variants()) {
            poison(out);
            a.dst = out.surf;
            ms = time_ms([&] { v.fn(a, v.param); }, s);
            sw.row(kase, v.name, ms, rw, max_diff(download(out), want), 1);
        }
        if (smooth) free_image(flat);
        a.src = src.tex;
    }
    // The 5x5 median: the app's launch first (its output, proven against the CPU by the GPU
    // tests, is the reference), then the other layouts and comparisons.
    if (wanted("median")) {
        auto variants = median_variants();
        a.dst = ref.surf;
        double ms = time_ms([&] { variants[0].fn(a, 0); }, s);
        auto want = download(ref);
        sw.row("median5", variants[0].name, ms, rw, 0, 0);
        for (size_t i = 1; i < variants.size(); ++i) {
            poison(out);
            a.dst = out.surf;
            ms = time_ms([&] { variants[i].fn(a, 0); }, s);
            sw.row("median5", variants[i].name, ms, rw, max_diff(download(out), want), 0);
        }
    }
    // Histogram (reads only), on the random image and on a smooth one (neighbours share
    // bins, as in photographs).
    for (int smooth = 0; smooth < 2 && wanted("histogram"); ++smooth) {
        const char* kase = smooth ? "histogram smooth" : "histogram";
        if (smooth) {
            upload(ref, smooth_pixels(w, h));
            a.src = ref.tex;
        }
        auto count = [&](const std::function<void()>& fn) {
            CHECK(cudaMemsetAsync(bins, 0, 1024 * 4, s));
            fn();
            std::vector<unsigned int> h(1024);
            CHECK(cudaMemcpy(h.data(), bins, 4096, cudaMemcpyDeviceToHost));
            return h;
        };
        a.bins = bins;
        auto want = count([&] { old_histogram(a, 0); });
        double ms = time_ms([&] { old_histogram(a, 0); }, s);
        sw.row(kase, "before", ms, (double)bytes, 0, 0);
        for (auto& v : histogram_variants()) {
            auto got = count([&] { v.fn(a, v.param); });
            int diff = got == want ? 0 : 1;
            ms = time_ms([&] { v.fn(a, v.param); }, s);
            sw.row(kase, v.name, ms, (double)bytes, diff, 0);
        }
        a.src = src.tex;
    }
    // Box.
    for (int r : {1, 2, 3, 4, 5, 6, 7, 8, 16, 64, 255}) {
        if (!wanted("box")) break;
        char kase[32];
        snprintf(kase, sizeof kase, "box r=%d", r);
        a.radius = r;
        a.dst = ref.surf;
        double ms = time_ms([&] { old_box(a, 0); }, s);
        auto want = download(ref);
        sw.row(kase, "before", ms, rw, 0, 0);
        for (auto& v : box_variants(r, w, h, sm_count)) {
            poison(out);
            a.dst = out.surf;
            ms = time_ms([&] { v.fn(a, v.param); }, s);
            sw.row(kase, v.name, ms, rw, max_diff(download(out), want), 0);
        }
    }
    // Gaussian.
    for (float sigma : {2.0f, 4.0f, 16.0f, 32.0f}) {
        if (!wanted("gauss")) break;
        int r = std::min(96, (int)std::ceil(3.0f * sigma));
        auto weights = gaussian_weights(sigma, r);
        char kase[32];
        snprintf(kase, sizeof kase, "gauss s=%g r=%d", sigma, r);
        a.radius = r;
        a.weights = weights.data();
        a.dst = ref.surf;
        double ms = time_ms([&] { old_gaussian(a, 0); }, s);
        auto want = download(ref);
        sw.row(kase, "before", ms, rw, 0, 0);
        for (auto& v : gaussian_variants(r)) {
            poison(out);
            a.dst = out.surf;
            ms = time_ms([&] { v.fn(a, v.param); }, s);
            sw.row(kase, v.name, ms, rw, max_diff(download(out), want), 2);
        }
    }
    CHECK(cudaDeviceSynchronize());
    cudaFree(lin_a);
    cudaFree(lin_b);
    cudaFree(scratch);
    cudaFree(bins);
    free_image(src);
    free_image(ref);
    free_image(out);
    free_image(ref_t);
    free_image(out_t);
}

int main(int argc, char** argv)
{
    FILE* csv = argc > 1 ? fopen(argv[1], "w") : nullptr;
    if (argc > 2) runs_global = atoi(argv[2]);
    quick = getenv("CUDALENS_SWEEP_QUICK") && getenv("CUDALENS_SWEEP_QUICK")[0] == '1';
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs, L2 %d MB, %d runs per variant (medians)\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20, quick ? 1 : runs_global);
    if (csv) fprintf(csv, "w,h,case,variant,ms,fraction_of_copy,max_diff\n");
    if (!quick) run_size(3840, 2160, csv, prop.multiProcessorCount);
    run_size(7680, 4320, csv, prop.multiProcessorCount);
    if (csv) fclose(csv);
    return 0;
}

// cdp_idle.cu: does a kernel of a module linked for dynamic parallelism (-rdc, cudadevrt)
// delay the next commands on its stream? Issue 10's explorer pays 0.16 ms between the first
// event of its frame and the event after the GL hand-over, whatever the view, the texture
// size or the interop path, while the filter frame on the same stream pays 0.002 ms. Each
// frame here: event e0, event e1 (nothing between), the kernel, event e2, synchronise; the
// medians of e1 - e0 and e2 - e1 over 30 frames after 3, per kernel. Built twice by
// probe.sh: with -rdc=true -lcudadevrt (as kernels/mandelbrot.cu) and without.
// The "after N ms idle" cases sleep on the CPU after each frame, as the app does between
// frames at the display's rate: does the first interval after an idle GPU grow without any
// GL context in the process (issue 10's 0.16 ms)?
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::printf("%s failed: %s\n", #x, cudaGetErrorString(err_)); std::exit(1); } } while (0)

__global__ void plain(int* out) { out[threadIdx.x] = threadIdx.x; }

#ifdef WITH_CDP
__global__ void child(int* out) { out[threadIdx.x] += 1; }

// Launches a child grid only when `launch` is set.
__global__ void parent(int* out, int launch)
{
    out[threadIdx.x] = threadIdx.x;
    if (launch && threadIdx.x == 0) {
        child<<<1, 32, 0, cudaStreamFireAndForget>>>(out);
    }
}
#endif

static float ms(cudaEvent_t a, cudaEvent_t b)
{
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    return t;
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <typename Launch>
static void frames(const char* name, cudaStream_t s, Launch launch, int idle_us = 0)
{
    cudaEvent_t e[3];
    for (auto& x : e) CHECK(cudaEventCreate(&x));
    std::vector<float> idle, kernel;
    for (int i = 0; i < 33; ++i) {
        CHECK(cudaEventRecord(e[0], s));
        CHECK(cudaEventRecord(e[1], s));
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(e[2], s));
        CHECK(cudaEventSynchronize(e[2]));
        if (idle_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(idle_us));
        if (i >= 3) {
            idle.push_back(ms(e[0], e[1]));
            kernel.push_back(ms(e[1], e[2]));
        }
    }
    std::printf("%-46s empty interval %.4f ms, kernel %.4f ms (medians of 30)\n", name,
                median(idle), median(kernel));
    for (auto& x : e) CHECK(cudaEventDestroy(x));
}

int main()
{
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int* out;
    CHECK(cudaMalloc(&out, 32 * sizeof(int)));
#ifdef WITH_CDP
    std::printf("module linked for dynamic parallelism (-rdc, cudadevrt)\n");
#else
    std::printf("plain module\n");
#endif
    frames("nothing (events only)", s, [] {});
    frames("plain kernel", s, [&] { plain<<<1, 32, 0, s>>>(out); });
#ifdef WITH_CDP
    frames("parent kernel, no child launched", s, [&] { parent<<<1, 32, 0, s>>>(out, 0); });
    frames("parent kernel, one child grid", s, [&] { parent<<<1, 32, 0, s>>>(out, 1); });
    frames("plain kernel, after the parents", s, [&] { plain<<<1, 32, 0, s>>>(out); });
#endif
    frames("nothing (events only), at the end", s, [] {});
    frames("nothing (events only), after 1 ms idle", s, [] {}, 1000);
    frames("plain kernel, after 1 ms idle", s, [&] { plain<<<1, 32, 0, s>>>(out); }, 1000);
    frames("plain kernel, after 16 ms idle", s, [&] { plain<<<1, 32, 0, s>>>(out); }, 16000);
    return 0;
}

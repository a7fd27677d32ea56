// sweep.h: the interface between the kernel-variant sweep's driver (main.cu) and the
// translation units that wrap kernel files (one per file, so that their #defines and
// extern "C" names stay apart). Not part of the app: a measuring tool for docs/gpu-runs.md.
#pragma once
#include <cuda_runtime.h>
#include <vector>
#include <string>

struct Args {
    cudaTextureObject_t src;
    cudaSurfaceObject_t dst;
    int w, h;
    int radius;          // box, gaussian
    float scale;         // sobel
    const float* weights;  // gaussian (host), 2 * radius + 1
    void* scratch;       // separable passes
    unsigned int* bins;  // histogram
    int sm_count;
    cudaStream_t stream;
};

typedef void (*LaunchFn)(const Args&, int param);

struct Variant {
    std::string name;
    LaunchFn fn;
    int param;
};

// New kernels (this branch).
std::vector<Variant> copy_variants();
std::vector<Variant> transpose_variants();
std::vector<Variant> sobel_variants();
std::vector<Variant> histogram_variants();
std::vector<Variant> box_variants(int radius, int w, int h, int sm_count);
std::vector<Variant> gaussian_variants(int radius);
std::vector<Variant> median_variants();

// The base commit's kernels: the "before" and the reference outputs.
void old_sobel(const Args&, int);
void old_box(const Args&, int);
void old_gaussian(const Args&, int);
void old_histogram(const Args&, int);
void old_transpose(const Args&, int);

#define CHECK(call)                                                                         \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(3);                                                                        \
        }                                                                                   \
    } while (0)

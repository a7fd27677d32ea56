// sobel_tiles.cu: Sobel edge magnitude with a shared-memory tile.
//
// Teaches the full-kernel form: your own __global__ function, launched with the block
// declared by `// @block` on a grid that covers the image, and dynamic shared memory sized
// by `// @shared` (bytes). Each block first loads the lumas of its 16x16 pixels and a
// one-pixel border into shared memory (read() clamps at the image edges), waits for the
// whole block (__syncthreads), then computes the 3x3 Sobel operator from the tile: each
// luma is computed once per block instead of nine times.
//
// The arithmetic is the built-in `sobel` filter's, step for step (luma, (a + 2b) + c,
// sums of squares, correctly rounded square root, round half away from zero), written
// with round-to-nearest intrinsics so the compiler fuses nothing into an FMA: the output
// equals `sobel:scale=S` bit for bit.
// @block 16x16
// @shared 1296
// @param float scale 0..64 = 1

#define TILE_W (CUDALENS_BLOCK_X + 2)
#define TILE_H (CUDALENS_BLOCK_Y + 2)
static_assert(TILE_W * TILE_H * (int)sizeof(float) <= CUDALENS_SHARED_BYTES,
              "@shared must hold (16 + 2) x (16 + 2) floats");

// (a + 2b) + c, each sum rounded.
__device__ float weighted_sum(float a, float b, float c)
{
    return __fadd_rn(__fadd_rn(a, __fmul_rn(2.0f, b)), c);
}

__global__ void sobel_tiles(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,
                            int height, Params p)
{
    extern __shared__ float tile[];  // TILE_H rows of TILE_W lumas
    const int x0 = blockIdx.x * CUDALENS_BLOCK_X - 1;  // the tile's top-left pixel
    const int y0 = blockIdx.y * CUDALENS_BLOCK_Y - 1;
    const int thread = threadIdx.y * CUDALENS_BLOCK_X + threadIdx.x;
    for (int i = thread; i < TILE_W * TILE_H; i += CUDALENS_BLOCK_X * CUDALENS_BLOCK_Y) {
        tile[i] = luma(read(src, x0 + i % TILE_W, y0 + i / TILE_W));
    }
    __syncthreads();

    const int x = x0 + 1 + threadIdx.x;
    const int y = y0 + 1 + threadIdx.y;
    if (x >= width || y >= height) return;
    // The 3x3 window: row u above, m at, d below; column 0 left, 1 centre, 2 right.
    const float* u = &tile[threadIdx.y * TILE_W + threadIdx.x];
    const float* m = u + TILE_W;
    const float* d = m + TILE_W;
    const float gx = __fsub_rn(weighted_sum(u[2], m[2], d[2]), weighted_sum(u[0], m[0], d[0]));
    const float gy = __fsub_rn(weighted_sum(d[0], d[1], d[2]), weighted_sum(u[0], u[1], u[2]));
    const float magnitude = __fsqrt_rn(__fadd_rn(__fmul_rn(gx, gx), __fmul_rn(gy, gy)));
    const unsigned char v = clamp255(__fmul_rn(p.scale, magnitude));
    write(dst, x, y, make_uchar4(v, v, v, read(src, x, y).w));
}

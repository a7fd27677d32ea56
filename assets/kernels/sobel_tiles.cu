// sobel_tiles.cu: Sobel edge magnitude with a shared-memory tile.
//
// Teaches the full-kernel form: your own __global__ function, launched with the block
// declared by `// @block` on a grid that covers the image, each thread `// @rows` rows of
// it, with dynamic shared memory sized by `// @shared` (bytes).
//
// A block of 32x8 threads makes a 32x32-pixel tile: each thread computes four pixels of a
// column, 8 rows apart. The block first loads the lumas of its tile and a one-pixel
// border (34x34) into shared memory, its 256 threads taking the 1156 pixels in turn
// (read() clamps at the image edges), and waits for the whole block (__syncthreads).
// Then each thread computes the 3x3 Sobel operator for its pixels from the tile: each
// luma is computed once per block instead of nine times, and the border adds 13% to the
// loads (a 16x16 tile would add 27%).
//
// The arithmetic is the built-in `sobel` filter's, step for step (luma, (a + 2b) + c,
// sums of squares, correctly rounded square root, round half away from zero), written
// with round-to-nearest intrinsics so the compiler fuses nothing else into an FMA: the
// output equals `sobel:scale=S` bit for bit.
// @block 32x8
// @rows 4
// @shared 4624
// @param float scale 0..64 = 1

#define TILE_W (CUDALENS_BLOCK_X + 2)
#define TILE_H (CUDALENS_BLOCK_Y * CUDALENS_ROWS + 2)
static_assert(TILE_W * TILE_H * (int)sizeof(float) <= CUDALENS_SHARED_BYTES,
              "@shared must hold (32 + 2) x (8 * 4 + 2) floats");

// (a + 2b) + c, each sum rounded (2b is exact, so a + 2b is one FMA).
__device__ float weighted_sum(float a, float b, float c)
{
    return __fadd_rn(__fmaf_rn(2.0f, b, a), c);
}

__global__ void sobel_tiles(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,
                            int height, Params p)
{
    extern __shared__ float tile[];  // TILE_H rows of TILE_W lumas
    const int x0 = blockIdx.x * CUDALENS_BLOCK_X - 1;  // the tile's top-left pixel
    const int y0 = blockIdx.y * CUDALENS_BLOCK_Y * CUDALENS_ROWS - 1;
    const int thread = threadIdx.y * CUDALENS_BLOCK_X + threadIdx.x;
    for (int i = thread; i < TILE_W * TILE_H; i += CUDALENS_BLOCK_X * CUDALENS_BLOCK_Y) {
        tile[i] = luma(read(src, x0 + i % TILE_W, y0 + i / TILE_W));
    }
    __syncthreads();

    const int x = x0 + 1 + threadIdx.x;
    if (x >= width) return;
#pragma unroll
    for (int r = 0; r < CUDALENS_ROWS; ++r) {
        const int row = threadIdx.y + r * CUDALENS_BLOCK_Y;  // the window's top row in the tile
        const int y = y0 + 1 + row;
        if (y >= height) return;
        // The 3x3 window: row u above, m at, d below; column 0 left, 1 centre, 2 right.
        const float* u = &tile[row * TILE_W + threadIdx.x];
        const float* m = u + TILE_W;
        const float* d = m + TILE_W;
        const float gx = __fsub_rn(weighted_sum(u[2], m[2], d[2]), weighted_sum(u[0], m[0], d[0]));
        const float gy = __fsub_rn(weighted_sum(d[0], d[1], d[2]), weighted_sum(u[0], u[1], u[2]));
        const float magnitude = __fsqrt_rn(__fadd_rn(__fmul_rn(gx, gx), __fmul_rn(gy, gy)));
        const unsigned char v = clamp255(__fmul_rn(p.scale, magnitude));
        write(dst, x, y, make_uchar4(v, v, v, read(src, x, y).w));
    }
}

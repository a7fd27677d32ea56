// canny_nms.cu: thin edges, the first steps of the Canny detector.
//
// Teaches two stages in one block with static shared memory. Stage 1 loads the lumas of
// the block's pixels and a two-pixel border; stage 2 computes the Sobel gradient of the
// block and a one-pixel border into a second tile; stage 3 keeps a pixel only where its
// gradient magnitude is a maximum along the gradient's direction (non-maximum
// suppression), which thins every edge to one pixel. Kept pixels above `high` are strong
// edges (white), those between `low` and `high` weak ones (grey); Canny's last step,
// hysteresis (keeping weak edges connected to strong ones), needs the whole image and is
// left out. __shared__ arrays sized by the CUDALENS_BLOCK_X/Y macros need no `@shared`.
// @block 16x16
// @param float low 0..1000 = 40
// @param float high 0..1000 = 100

#define BX CUDALENS_BLOCK_X
#define BY CUDALENS_BLOCK_Y

__global__ void canny_nms(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,
                          int height, Params p)
{
    __shared__ float lumas[BY + 4][BX + 4];   // the block and a 2-pixel border
    __shared__ float2 grad[BY + 2][BX + 2];   // (gx, gy) of the block and a 1-pixel border
    const int x0 = blockIdx.x * BX;
    const int y0 = blockIdx.y * BY;
    const int thread = threadIdx.y * BX + threadIdx.x;

    for (int i = thread; i < (BX + 4) * (BY + 4); i += BX * BY) {
        const int tx = i % (BX + 4), ty = i / (BX + 4);
        lumas[ty][tx] = luma(read(src, x0 - 2 + tx, y0 - 2 + ty));
    }
    __syncthreads();

    for (int i = thread; i < (BX + 2) * (BY + 2); i += BX * BY) {
        const int tx = i % (BX + 2), ty = i / (BX + 2);
        // grad[ty][tx] is at lumas[ty + 1][tx + 1]; its 3x3 window starts at lumas[ty][tx].
        const float gx = (lumas[ty][tx + 2] + 2.0f * lumas[ty + 1][tx + 2] + lumas[ty + 2][tx + 2]) -
                         (lumas[ty][tx] + 2.0f * lumas[ty + 1][tx] + lumas[ty + 2][tx]);
        const float gy = (lumas[ty + 2][tx] + 2.0f * lumas[ty + 2][tx + 1] + lumas[ty + 2][tx + 2]) -
                         (lumas[ty][tx] + 2.0f * lumas[ty][tx + 1] + lumas[ty][tx + 2]);
        grad[ty][tx] = make_float2(gx, gy);
    }
    __syncthreads();

    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= width || y >= height) return;
    const int cx = threadIdx.x + 1, cy = threadIdx.y + 1;  // this pixel in grad
    const float2 g = grad[cy][cx];
    const float magnitude = sqrtf(g.x * g.x + g.y * g.y);
    // The gradient's direction, to the nearest 45 degrees: the two neighbours along it.
    const float ax = fabsf(g.x), ay = fabsf(g.y);
    int dx, dy;
    if (ay <= 0.41421356f * ax) {         // within 22.5 degrees of horizontal
        dx = 1; dy = 0;
    } else if (ax <= 0.41421356f * ay) {  // within 22.5 degrees of vertical
        dx = 0; dy = 1;
    } else {                              // diagonal: same signs go down-right
        dx = 1; dy = (g.x > 0.0f) == (g.y > 0.0f) ? 1 : -1;
    }
    const float2 a = grad[cy + dy][cx + dx], b = grad[cy - dy][cx - dx];
    const bool is_max = magnitude >= sqrtf(a.x * a.x + a.y * a.y) &&
                        magnitude > sqrtf(b.x * b.x + b.y * b.y);
    const float v = !is_max || magnitude < p.low ? 0.0f : (magnitude < p.high ? 128.0f : 255.0f);
    write(dst, x, y, grey(v, read(src, x, y).w));
}

// yuv_to_rgba.cu: a decoded video frame (NVDEC's NV12, or P016 with the value in the high
// bits) to RGBA8 in the frame's source surface. The same integer arithmetic as the CPU
// reference (src/video/yuv.rs): chroma sited on even columns and between rows, mixed in
// eighths (x: 1/2 1/2 on odd columns, y: 3/4 1/4), edges clamped; the matrix and range in
// 16.16 fixed point, rounded to nearest and saturated.
//
// One pixel a thread; the launch chooses the block and a grid covering width x height.
// The frame's luma rows are `pitch` bytes apart; its interleaved Cb Cr rows start
// `chroma_row` rows after the first luma row.

struct YuvToRgb {
    int y_offset, c_offset8, y_gain, r_cr, g_cb, g_cr, b_cb;
};

template <bool SIXTEEN>
__device__ __forceinline__ int sample_at(const unsigned char* frame, size_t offset, int shift)
{
    if (SIXTEEN) return (int)(*reinterpret_cast<const unsigned short*>(frame + offset) >> shift);
    return (int)frame[offset];
}

// Eight times Cb (plane 0) or Cr (plane 1) at luma pixel (x, y).
template <bool SIXTEEN>
__device__ __forceinline__ int chroma8(const unsigned char* frame, int pitch, int chroma_row,
                                       int cw, int ch, int x, int y, int plane, int shift)
{
    const int bytes = SIXTEEN ? 2 : 1;
    const int cx = x >> 1, cy = y >> 1;
    const int near = (y & 1) == 0 ? max(cy - 1, 0) : min(cy + 1, ch - 1);
    const int x0 = min(cx, cw - 1), x1 = min(cx + 1, cw - 1);
    int column[2];
    const int rows[2] = {min(cy, ch - 1), near};
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const size_t row = (size_t)(chroma_row + rows[i]) * pitch;
        const int a = sample_at<SIXTEEN>(frame, row + (size_t)(2 * x0 + plane) * bytes, shift);
        if ((x & 1) == 0) {
            column[i] = 2 * a;
        } else {
            column[i] = a + sample_at<SIXTEEN>(frame, row + (size_t)(2 * x1 + plane) * bytes, shift);
        }
    }
    return 3 * column[0] + column[1];
}

__device__ __forceinline__ unsigned int to_u8(int v)
{
    return (unsigned int)min(max(v >> 16, 0), 255);
}

template <bool SIXTEEN>
__device__ __forceinline__ void yuv_pixel(const unsigned char* frame, int pitch, int chroma_row,
                                          int width, int height, int shift, YuvToRgb k,
                                          cudaSurfaceObject_t dst)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const int cw = (width + 1) >> 1, ch = (height + 1) >> 1;
    const int bytes = SIXTEEN ? 2 : 1;
    const int luma = sample_at<SIXTEEN>(frame, (size_t)y * pitch + (size_t)x * bytes, shift);
    const int cb = chroma8<SIXTEEN>(frame, pitch, chroma_row, cw, ch, x, y, 0, shift) - k.c_offset8;
    const int cr = chroma8<SIXTEEN>(frame, pitch, chroma_row, cw, ch, x, y, 1, shift) - k.c_offset8;
    const int yy = k.y_gain * (luma - k.y_offset) + (1 << 15);
    const unsigned int r = to_u8(yy + k.r_cr * cr);
    const unsigned int g = to_u8(yy - k.g_cb * cb - k.g_cr * cr);
    const unsigned int b = to_u8(yy + k.b_cb * cb);
    surf2Dwrite(r | (g << 8) | (b << 16) | (255u << 24), dst, x * 4, y);
}

// NV12: bytes.
extern "C" __global__ void nv12_to_rgba(const unsigned char* frame, int pitch, int chroma_row,
                                        int width, int height, YuvToRgb k, cudaSurfaceObject_t dst)
{
    yuv_pixel<false>(frame, pitch, chroma_row, width, height, 0, k, dst);
}

// P016: 16-bit words holding a `16 - shift`-bit value in their high bits.
extern "C" __global__ void p016_to_rgba(const unsigned char* frame, int pitch, int chroma_row,
                                        int width, int height, int shift, YuvToRgb k,
                                        cudaSurfaceObject_t dst)
{
    yuv_pixel<true>(frame, pitch, chroma_row, width, height, shift, k, dst);
}

// mandelbrot_rect.cuh: rectangles of the Mariani-Silver refinement and the order in which
// their pixels are enumerated, the same as src/mandelbrot/rect.rs (tested there).
//
// A rectangle is given by its border lines: columns x0, x1 and rows y0, y1 (inclusive).
// Neighbours share a border line; interiors are disjoint. A level-k rectangle is a cell
// of the grid of spacing S_k aligned to the image origin. Images are at most 32768 pixels
// a side, so every count below fits an int.
#pragma once

struct MsRect {
    int x0, y0, x1, y1;
};

__device__ __forceinline__ MsRect ms_rect(int x0, int y0, int x1, int y1)
{
    MsRect r;
    r.x0 = x0; r.y0 = y0; r.x1 = x1; r.y1 = y1;
    return r;
}

__device__ __forceinline__ MsRect ms_rect_from(ushort4 v) { return ms_rect(v.x, v.y, v.z, v.w); }

__device__ __forceinline__ ushort4 ms_rect_pack(MsRect r)
{
    return make_ushort4((unsigned short)r.x0, (unsigned short)r.y0, (unsigned short)r.x1, (unsigned short)r.y1);
}

__device__ __forceinline__ int ms_interior_w(MsRect r) { return max(r.x1 - r.x0 - 1, 0); }
__device__ __forceinline__ int ms_interior_h(MsRect r) { return max(r.y1 - r.y0 - 1, 0); }
__device__ __forceinline__ int ms_interior_pixels(MsRect r) { return ms_interior_w(r) * ms_interior_h(r); }

// (x1 - x0) * (y1 - y0): S^2 for a whole cell of spacing S.
__device__ __forceinline__ long long ms_extent(MsRect r)
{
    return (long long)(r.x1 - r.x0) * (long long)(r.y1 - r.y0);
}

// The i-th interior pixel, row by row.
__device__ __forceinline__ int2 ms_interior_pixel(MsRect r, int i)
{
    const int w = ms_interior_w(r);
    return make_int2(r.x0 + 1 + i % w, r.y0 + 1 + i / w);
}

// Cells of spacing s across and down, and cell (i, j).
__device__ __forceinline__ int2 ms_cell_counts(MsRect r, int s)
{
    return make_int2(div_up(r.x1 - r.x0, s), div_up(r.y1 - r.y0, s));
}

__device__ __forceinline__ MsRect ms_cell(MsRect r, int s, int i, int j)
{
    return ms_rect(r.x0 + i * s, r.y0 + j * s, min(r.x0 + (i + 1) * s, r.x1), min(r.y0 + (j + 1) * s, r.y1));
}

// Border pixels, each once: top row, bottom row, then the inner parts of the columns.
__device__ __forceinline__ int ms_border_count(MsRect r)
{
    const int w = r.x1 - r.x0 + 1, h = r.y1 - r.y0 + 1;
    if (w == 1 || h == 1) return w * h;
    return 2 * w + 2 * (h - 2);
}

__device__ __forceinline__ int2 ms_border_pixel(MsRect r, int i)
{
    const int w = r.x1 - r.x0 + 1, h = r.y1 - r.y0 + 1;
    if (w == 1 || h == 1) return make_int2(r.x0 + i % w, r.y0 + i / w);
    if (i < w) return make_int2(r.x0 + i, r.y0);
    if (i < 2 * w) return make_int2(r.x0 + i - w, r.y1);
    i -= 2 * w;
    return (i < h - 2) ? make_int2(r.x0, r.y0 + 1 + i) : make_int2(r.x1, r.y0 + 1 + i - (h - 2));
}

// Pixels on the interior lines of spacing s (multiples of s from the corner, strictly
// inside): the vertical lines one after the other, then the horizontal ones without the
// crossings.
__device__ __forceinline__ int ms_line_count(MsRect r, int s)
{
    const int wi = ms_interior_w(r), hi = ms_interior_h(r);
    const int nv = wi / s, nh = hi / s;
    return nv * hi + nh * (wi - nv);
}

__device__ __forceinline__ int2 ms_line_pixel(MsRect r, int s, int i)
{
    const int wi = ms_interior_w(r), hi = ms_interior_h(r);
    const int nv = wi / s;
    const int vertical = nv * hi;
    if (i < vertical) return make_int2(r.x0 + (i / hi + 1) * s, r.y0 + 1 + i % hi);
    const int t = i - vertical, per_line = wi - nv;
    const int p = t % per_line;
    return make_int2(r.x0 + 1 + p + p / (s - 1), r.y0 + (t / per_line + 1) * s);
}

// The first pass: the image's border and its lines of spacing s, each pixel once (rows at
// multiples of s and the last row, then the columns without the crossings).
__device__ __forceinline__ int ms_grid_lines(int len, int s) { return (len - 1) / s + 1 + ((len - 1) % s != 0); }

__device__ __forceinline__ int ms_grid_count(int w, int h, int s)
{
    const int rows = ms_grid_lines(h, s), cols = ms_grid_lines(w, s);
    return rows * w + cols * (h - rows);
}

__device__ __forceinline__ int2 ms_grid_pixel(int w, int h, int s, int i)
{
    const int rows = ms_grid_lines(h, s);
    if (i < rows * w) return make_int2(i % w, min((i / w) * s, h - 1));
    const int t = i - rows * w, per_col = h - rows;
    const int q = t % per_col;
    return make_int2(min((t / per_col) * s, w - 1), 1 + q + q / (s - 1));
}

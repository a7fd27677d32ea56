// invert.cu: the smallest cudalens kernel.
//
// Teaches the per-pixel form: write `uchar4 pixel(int x, int y, Image src, Params p)` and
// cudalens calls it once for every pixel of the output, generates the __global__ function
// around it and stores what it returns. read(src, x, y) gives a source pixel as 0..255
// channels (.x red, .y green, .z blue, .w alpha).
uchar4 pixel(int x, int y, Image src, Params p)
{
    const uchar4 c = read(src, x, y);
    return make_uchar4(255 - c.x, 255 - c.y, 255 - c.z, c.w);  // alpha unchanged
}

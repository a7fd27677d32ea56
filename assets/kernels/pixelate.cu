// pixelate.cu: big square pixels.
//
// Teaches reading a pixel other than (x, y) and integer parameters. Each output pixel
// takes the colour at the centre of its size x size cell; read() clamps coordinates to the
// image, so the cells cut by the right and bottom edges need no special case.
// @param int size 1..64 = 8
uchar4 pixel(int x, int y, Image src, Params p)
{
    const int cx = (x / p.size) * p.size + p.size / 2;
    const int cy = (y / p.size) * p.size + p.size / 2;
    return read(src, cx, cy);
}

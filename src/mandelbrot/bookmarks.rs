//! Built-in places worth a look: (name, centre, span, suggested max dwell).

pub const BOOKMARKS: [(&str, (f64, f64), f64, u32); 6] = [
    ("Whole set", (-0.5, 0.0), 3.0, 1024),
    (
        "Seahorse valley",
        (-0.743_643_887, 0.131_825_904),
        0.002,
        2048,
    ),
    ("Elephant valley", (0.285_4, 0.011_5), 0.02, 1024),
    ("Triple spiral", (-0.088, 0.654), 0.004, 2048),
    (
        "Mini Mandelbrot",
        (-1.768_778_833, -0.001_738_996),
        0.000_08,
        4096,
    ),
    ("Scepter", (-1.362, 0.0), 0.05, 1024),
];

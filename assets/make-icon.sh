#!/usr/bin/env bash
# Renders the app's icon, assets/cudalens.png (256×256, the CPU backend: no GPU needed),
# with the command line: the whole set in continuous colours.
#   bash assets/make-icon.sh [path/to/cudalens]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/cudalens}
"$bin" mandelbrot -o assets/cudalens.png --force --backend cpu --width 256 --height 256 \
    --center -0.65,0 --span 2.7 --max-dwell 512 --smooth --palette ocean

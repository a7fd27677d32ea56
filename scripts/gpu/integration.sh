#!/usr/bin/env bash
# The merged product on the lent GPU machine, in calls that each fit one command's limit.
# Staged here by scripts/gpu/prepare.sh (.carry/bundle.tar.xz: the release binary, the gpu,
# cli and soak test binaries, and with BEFORE= an older build; the kernel-variant sweep as
# .carry/sweep); run there from the repository root with carry [".carry", ".gl"]:
#   bash scripts/gpu/integration.sh a   # GPU tests on both interop paths vs the CPU, apply
#                                       # vs CPU, median/equalize vs OpenCV, bench before and
#                                       # after with NPP's peers at 4K and 8K, memcheck
#   bash scripts/gpu/integration.sh b   # Mandelbrot tests, GPU faults, the 10 000-frame
#                                       # soak, the kernel sweep and Nsight Compute over it
#   bash scripts/gpu/integration.sh c   # GPU faults, the soak on each path, batch images/s,
#                                       # the Mandelbrot and deep-zoom benchmarks
#   bash scripts/gpu/integration.sh d   # the GPU tests, racecheck, initcheck, synccheck
#   bash scripts/gpu/integration.sh e   # racecheck on small images, bench with NPP's peers
#                                       # at 4K and 8K, a 25 000-frame soak
#   bash scripts/gpu/integration.sh f   # the soak's parts apart: image loads alone, views
#                                       # of random or fixed size, filters with or without
#                                       # new images, on each interop path
#   bash scripts/gpu/integration.sh g   # deep zoom: GPU tests, bench, memcheck; the soak's
#                                       # parts again with GL finished at checkpoints
#   bash scripts/gpu/integration.sh h   # the final code: GPU tests, memcheck, racecheck,
#                                       # bench before (BEFORE=) and after with NPP's peers
#   bash scripts/gpu/integration.sh i   # 50 000 frames on one image: is the host's growth
#                                       # bounded or a leak per frame?
#   bash scripts/gpu/integration.sh j   # the CPU backend against OpenCV on the idle machine
#   bash scripts/gpu/integration.sh k   # Mariani-Silver on deep views: the GPU tests, the
#                                       # deep benchmark (both modes), memcheck on deep and
#                                       # Mandelbrot tests
#   bash scripts/gpu/integration.sh l   # the Mandelbrot benchmark before (BEFORE=) and after,
#                                       # the soak with the explorer on external memory
#   bash scripts/gpu/integration.sh m   # Mandelbrot tests, the deep Mariani-Silver sweep, the
#                                       # Mandelbrot benchmark on both interop paths, memcheck
#   bash scripts/gpu/integration.sh n   # GPU tests, the Mandelbrot benchmark before
#                                       # (BEFORE=), the Mariani-Silver sweep
#                                       # with the benchmark after, memcheck
#   bash scripts/gpu/integration.sh o   # GPU tests, memcheck, the Mandelbrot benchmark
#                                       # before (BEFORE=) and after
#   bash scripts/gpu/integration.sh q   # the benchmark; the explorer's soak on each path,
#                                       # views fixed or of random sizes
#   bash scripts/gpu/integration.sh r   # the box kernels' sweep (SWEEP=), GPU tests, the
#                                       # soak's host memory placed (filters, views, none)
#   bash scripts/gpu/integration.sh s   # the box and Gaussian kernels' sweep, GPU tests,
#                                       # memcheck on the box tests, bench before (BEFORE=)
#                                       # and after with NPP's peers at 4K
#   bash scripts/gpu/integration.sh t   # bench before and after with NPP's peers at 8K
#   bash scripts/gpu/integration.sh u   # the histogram's sweep (random and smooth images),
#                                       # GPU tests, bench before and after at 4K and 8K
#   bash scripts/gpu/integration.sh v   # the final code: GPU tests, memcheck on the box
#                                       # tests, bench with NPP's peers at 4K and 8K
#   bash scripts/gpu/integration.sh ga  # Sobel, small boxes and histogram: their sweep
#                                       # (SWEEP=), GPU tests, memcheck on the filter tests
#   bash scripts/gpu/integration.sh gb  # bench before (BEFORE=) and after with NPP's peers
#                                       # at 4K and 8K, Nsight Compute on Sobel and 3x3 box
#   bash scripts/gpu/integration.sh gc  # the soak's RSS placed by mapping
#   bash scripts/gpu/integration.sh gd  # the Sobel and box sweep (shorter segments), and gc
#   bash scripts/gpu/integration.sh ge  # the Sobel and box sweep, GPU tests, bench before
#                                       # (BEFORE=) and after with NPP's peers at 4K and 8K
#   bash scripts/gpu/integration.sh gf  # GPU tests, memcheck on the filter tests, bench
#                                       # before and after with NPP's peers at 4K and 8K
#   bash scripts/gpu/integration.sh gg  # gf with racecheck on the filter tests
#   bash scripts/gpu/integration.sh hp  # the explorer's semaphores kept through resizes:
#                                       # the resize test before (BEFORE_TESTS=) and after,
#                                       # the soak's variants, GPU tests, apply
#   bash scripts/gpu/integration.sh gh  # racecheck on the filter tests (330 s), the soak
#                                       # with a 4 000-frame warm-up
#   bash scripts/gpu/integration.sh gi  # the 8K bench five times: how often the hand-over
#                                       # passes 0.05 ms
#   bash scripts/gpu/integration.sh gj  # gf and Nsight Compute on the 5x5 median at 8K
#   bash scripts/gpu/integration.sh gk  # the 5x5 median's variants (sweep, Nsight Compute)
#   bash scripts/gpu/integration.sh gl  # gk and bench --peers at 4K and 8K (the median,
#                                       # unsharp and equalisation peers)
#   bash scripts/gpu/integration.sh gr  # bench --peers at 4K and 8K, before and after
#   bash scripts/gpu/integration.sh gs  # the one-pass refinement: Mandelbrot tests,
#                                       # bench --mandelbrot before and after, memcheck
#   bash scripts/gpu/integration.sh gt  # before, a trial build (VARIANT=) and after, twice
#   bash scripts/gpu/integration.sh gv  # bench --ms-sweep with the fused kernel
#   bash scripts/gpu/integration.sh gw  # the sweep and bench --mandelbrot, before and after
#   bash scripts/gpu/integration.sh gx  # Mandelbrot tests and memcheck; bench --peers at 4K
#                                       # and 8K, before and after
#   bash scripts/gpu/integration.sh hc  # the soak on one image on both interop paths, and
#                                       # every GPU test
#   bash scripts/gpu/integration.sh hb  # the soak (everything; filters on one image) and
#                                       # every GPU test
#   bash scripts/gpu/integration.sh ha  # the soak's host memory with every frame read back
#                                       # and with only the checked ones; the whole soak
#   bash scripts/gpu/integration.sh gz  # Mandelbrot tests and racecheck; bench --mandelbrot
#                                       # before, a trial build and after, twice
#   bash scripts/gpu/integration.sh gy  # racecheck, initcheck, synccheck on the Mandelbrot
#                                       # tests with the module built without child grids;
#                                       # the Mandelbrot and deep-view tests
#   bash scripts/gpu/integration.sh gu  # every GPU test, Mandelbrot memcheck, before and
#                                       # after, the explorer's soak on both interop paths
# Each part stops its steps at DEADLINE (default: 560 s from its start). Only summaries,
# logs, JSON and CSV go to $OUT (at most 8 files come back).
set -u
OUT=${OUT:-/tmp/cudalens-out}
export DEADLINE=${DEADLINE:-$(($(date +%s) + 560))} HOSTILE=/tmp/hostile
mkdir -p "$OUT" "$HOSTILE"
case ${1:-a} in
    a) bash scripts/gpu/run.sh smi doctor tests apply opencv before4k peers4k before8k peers8k memcheck ;;
    b) bash scripts/gpu/run.sh smi mandel-tests faults soak sweep ncu ;;
    c) bash scripts/gpu/run.sh smi faults soak batch bench deep ;;
    d) SANITIZER_SECONDS=140 bash scripts/gpu/run.sh smi tests racecheck initcheck synccheck ;;
    e) export SOAK_VARIANTS="auto:both auto:mandelbrot" SOAK_FRAMES=25000 SOAK_WARM_UP=10000 SOAK_SECONDS=170
       SANITIZER_SECONDS=170 bash scripts/gpu/run.sh smi racecheck peers4k peers8k soak ;;
    f) export SOAK_VARIANTS="auto:none:1 auto:mandelbrot:0:random auto:mandelbrot:0:fixed auto:filters:0 classic:filters:0 auto:filters:1" \
           SOAK_FRAMES=6000 SOAK_WARM_UP=1000 SOAK_SECONDS=50
       bash scripts/gpu/run.sh smi soak ;;
    g) export SOAK_VARIANTS="auto:none:1 auto:filters:1 classic:filters:1 auto:mandelbrot:0:fixed" \
           SOAK_FRAMES=6000 SOAK_WARM_UP=1000 SOAK_SECONDS=50
       bash scripts/gpu/run.sh smi deep-tests deep deep-memcheck soak ;;
    i) export SOAK_VARIANTS="auto:filters:0 classic:filters:0 auto:mandelbrot:0:fixed" \
           SOAK_FRAMES=50000 SOAK_WARM_UP=5000 SOAK_SECONDS=120
       bash scripts/gpu/run.sh smi soak ;;
    j) bash scripts/gpu/run.sh smi opencv-cpu ;;
    k) bash scripts/gpu/run.sh smi tests deep deep-memcheck ;;
    m) bash scripts/gpu/run.sh smi mandel-tests deep-sweep bench mandel-classic deep-memcheck ;;
    l) export SOAK_VARIANTS="auto:mandelbrot:0:fixed auto:both" SOAK_FRAMES=6000 SOAK_WARM_UP=1000 SOAK_SECONDS=60
       bash scripts/gpu/run.sh smi mandel-before bench soak ;;
    n) bash scripts/gpu/run.sh smi tests mandel-before ms-sweep deep-memcheck ;;
    o) bash scripts/gpu/run.sh smi tests memcheck mandel-before bench ;;
    q) export SOAK_VARIANTS="auto:mandelbrot:0:fixed auto:mandelbrot:0:random classic:mandelbrot:0:random" \
           SOAK_FRAMES=6000 SOAK_WARM_UP=1000 SOAK_SECONDS=60
       bash scripts/gpu/run.sh smi bench soak ;;
    r) export CUDALENS_SWEEP_CASES=box SOAK_FRAMES=6000 SOAK_WARM_UP=1000 SOAK_SECONDS=50 \
           SOAK_VARIANTS="auto:filters:0 auto:none:0 auto:mandelbrot:0:fixed"
       bash scripts/gpu/run.sh smi sweep tests soak ;;
    s) CUDALENS_SWEEP_CASES=box,gauss bash scripts/gpu/run.sh smi sweep tests box-memcheck before4k peers4k ;;
    t) bash scripts/gpu/run.sh smi before8k peers8k ;;
    v) bash scripts/gpu/run.sh smi tests box-memcheck peers4k peers8k ;;
    u) CUDALENS_SWEEP_CASES=histogram bash scripts/gpu/run.sh smi sweep tests before4k peers4k before8k peers8k ;;
    w) CUDALENS_SWEEP_CASES=gauss bash scripts/gpu/run.sh smi sweep gauss-tests before4k peers4k before8k peers8k gauss-memcheck gauss-racecheck ;;
    x) CUDALENS_SWEEP_CASES=gauss bash scripts/gpu/run.sh smi sweep tests before4k peers4k before8k peers8k ncu-gauss gauss-memcheck ;;
    y) CUDALENS_SWEEP_CASES=gauss bash scripts/gpu/run.sh smi sweep tests before4k peers4k before8k peers8k gauss-memcheck ;;
    z) CUDALENS_SWEEP_CASES=gauss bash scripts/gpu/run.sh smi sweep gauss-tests before4k peers4k before8k peers8k ncu-gauss gauss-memcheck ;;
    fa) bash scripts/gpu/run.sh smi tests before4k peers4k before8k peers8k gauss-memcheck ;;
    fb) bash scripts/gpu/run.sh smi gauss-racecheck gauss-initcheck ;;
    fc) bash scripts/gpu/run.sh smi gauss-racecheck ;;
    fd) bash scripts/gpu/run.sh smi gauss-tests before4k peers4k before8k peers8k gauss-memcheck ;;
    fe) bash scripts/gpu/run.sh smi gauss-tests box-memcheck before8k peers8k ;;
    ga) CUDALENS_SWEEP_CASES=sobel,box,histogram bash scripts/gpu/run.sh smi sweep tests filters-memcheck ;;
    gb) bash scripts/gpu/run.sh smi before4k peers4k before8k peers8k ncu-filters ;;
    gd) export SOAK_VARIANTS="auto:none:1 auto:filters:0" SOAK_FRAMES=6000 SOAK_WARM_UP=1000 SOAK_SECONDS=50
        CUDALENS_SWEEP_CASES=sobel,box bash scripts/gpu/run.sh smi sweep soak ;;
    ge) CUDALENS_SWEEP_CASES=sobel,box bash scripts/gpu/run.sh smi sweep tests before4k peers4k before8k peers8k ;;
    gf) bash scripts/gpu/run.sh smi tests filters-memcheck before4k peers4k before8k peers8k ;;
    gg) SANITIZER_SECONDS=120 bash scripts/gpu/run.sh smi tests filters-memcheck racecheck before4k peers4k before8k peers8k ;;
    gh) export SOAK_VARIANTS="auto:filters:0 auto:both" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=60
        SANITIZER_SECONDS=330 bash scripts/gpu/run.sh smi racecheck soak ;;
    gj) bash scripts/gpu/run.sh smi tests filters-memcheck before4k peers4k before8k peers8k ncu-median ;;
    gk) CUDALENS_SWEEP_CASES=median bash scripts/gpu/run.sh smi sweep ncu-median-sweep ;;
    gm) bash scripts/gpu/run.sh smi cdp-idle peer-check ;;
    gs) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before bench mandel-memcheck ;;
    gu) export SOAK_VARIANTS="auto:mandelbrot classic:mandelbrot" SOAK_SECONDS=60
        bash scripts/gpu/run.sh smi mandel-smoke tests mandel-memcheck mandel-before bench soak ;;
    gv) bash scripts/gpu/run.sh smi ms-sweep ;;
    gw) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests ms-sweep-before ms-sweep mandel-before bench mandel-memcheck ;;
    gt) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before mandel-variant bench mandel-variant mandel-before bench ;;
    gr) bash scripts/gpu/run.sh smi before4k peers4k before8k peers8k ;;
    # Issue 9 (session 17): the large sweep with the first partitions (512 -> 64 px at
    # 16384^2, 128 -> 16 px at 4096^2) among its candidates, and where the fused kernel's
    # instructions go at 4096^2/512 (Nsight Compute, per-pixel beside it).
    ig) bash scripts/gpu/run.sh smi mandel-smoke ncu-4k ms-sweep-large ;;
    # ... then the large sweep with more in-block nestings, and the finalists side by side
    # from 1920x1080 to 16384^2 (bookmarks and the goal view).
    ih) bash scripts/gpu/run.sh smi ms-sweep-large ms-compare ;;
    # The measured tuning above 4096^2 now nested in-block (64 -> 16 px): the Mandelbrot tests
    # (every path tuning against the CPU), the benchmark before (BEFORE=) and after, memcheck.
    ii) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before bench mandel-memcheck ;;
    # ... and the whole sweep with its full table (sizes 1280x720 ... 16384^2, per view).
    ij) bash scripts/gpu/run.sh smi ms-sweep ;;
    # The fused kernel's first decision taken by one warp for the block, its cell's pixels laid
    # out two rows a warp: the Mandelbrot tests, the benchmark before (BEFORE=) and after
    # twice, Nsight Compute at 4096^2/512, memcheck and racecheck.
    ik) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before bench mandel-before bench ncu-4k mandel-memcheck mandel-racecheck ;;
    # racecheck over the Mandelbrot tests failed in run 143 in the colours test: the same with
    # the older build's tests (BEFORE_TESTS=), and the dwell test (the fused kernel) alone.
    il) bash scripts/gpu/run.sh smi mandel-racecheck-before mandel-racecheck-dwells mandel-synccheck mandel-initcheck ;;
    # The flags read in one round trip (relaxed loads, one fence), against the build of run 143
    # (VARIANT=) and before (BEFORE=); racecheck's failure placed (verbose test, the command
    # line), memcheck.
    im) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-racecheck-verbose mandel-before mandel-variant bench mandel-before mandel-variant bench ncu-4k mandel-memcheck ;;
    # racecheck's failure bisected: the command line under racecheck with this build, a trial
    # build whose warps each take the first decision as before (VARIANT=) and the older one.
    in) bash scripts/gpu/run.sh smi racecheck-cli-builds ;;
    io) bash scripts/gpu/run.sh smi racecheck-options ;;
    # The fused kernel as kept (the first decision by one warp, two rows a warp; each thread
    # computes its cell's place): Mandelbrot tests, racecheck, memcheck, synccheck, initcheck,
    # the benchmark before (BEFORE=), the build of run 143 (VARIANT=) and after.
    ip) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-racecheck mandel-memcheck mandel-synccheck mandel-initcheck mandel-before mandel-variant bench mandel-before mandel-variant bench ;;
    # Where the in-block refinement's time goes at 16384^2/512 (Nsight Compute).
    iq) bash scripts/gpu/run.sh smi ncu-16k ;;
    # The in-block refinement's fills taken out of its work list (the block fills each in row
    # order, no search or division per pixel): the Mandelbrot tests, the benchmark before
    # (BEFORE=) and after twice, Nsight Compute at 16384^2/512.
    ir) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before bench mandel-before bench ncu-16k ;;
    # ... the same with two-ended item lists (fills from the back), the 16 x 16 fill and a
    # uniform cell filled without the lists; plus the fills with continuous values at 16K.
    is) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before bench mandel-before bench smooth-16k ncu-16k ;;
    # Lanes refilled: a lane runs its pixel's orbit 32 steps at a time and idle lanes take the
    # next pixels together. The Mandelbrot tests, the benchmark of the fills-only build
    # (BEFORE=), of the same with 16 steps (VARIANT=) and of this build, twice; Nsight Compute
    # at 16384^2/512; the deep-view tests (their dwell sources keep fixed chunks).
    it) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before mandel-variant bench mandel-before mandel-variant bench ncu-16k deep-tests ;;
    # The refill's burst and threshold: 32 steps / 8 idle lanes (BEFORE=), 64 / 8 (VARIANT=)
    # and 64 / 4 (this build), each timed twice.
    iu) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before mandel-variant bench mandel-before mandel-variant bench ;;
    # With the refill (64 steps / 4 idle lanes): the large sweep again (tunings for 4096^2 and
    # up), then the finalists side by side from 1920x1080 to 16384^2.
    iv) bash scripts/gpu/run.sh smi ms-sweep-large ;;
    # ... with more in-block candidates (from 256 px, leaves of 8 px), the window sweep, and
    # the finalists side by side from 1920x1080 to 16384^2.
    iw) bash scripts/gpu/run.sh smi ms-sweep-large ms-sweep-window ms-compare ;;
    # ... the large sweep with leaves of 8 px from 32 to 128 px and deeper lookahead, and the
    # finalists (those with leaves of 8 px and 128 px cells among them) side by side.
    ix) bash scripts/gpu/run.sh smi ms-sweep-large ms-compare ;;
    # The measured tunings in four size classes (fused 16 px up to 3840x2160, then in-block
    # 32 -> 8, 64 -> 16 and 128 -> 16 px): the Mandelbrot tests (every class against the CPU),
    # the benchmark before (BEFORE=, session 17's code), with 128-step bursts (VARIANT=) and
    # this build (64 steps), twice.
    iy) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before mandel-variant bench mandel-before mandel-variant bench ;;
    # The session's final code: every GPU test on both interop paths and memcheck over the
    # Mandelbrot tests; then racecheck, synccheck and initcheck over them (the sanitizer
    # module, no child grids) and Nsight Compute at 16384^2/512 with the measured tuning.
    iz) bash scripts/gpu/run.sh smi tests mandel-memcheck ;;
    ja) bash scripts/gpu/run.sh smi mandel-racecheck mandel-synccheck mandel-initcheck ncu-16k ;;
    # The finalists side by side again, 128 -> 16 px with the lookahead kept (1).
    jb) bash scripts/gpu/run.sh smi ms-compare ;;
    # Trial: a refilled lane finds its next pixel's item by stepping on from its last (no
    # search): the Mandelbrot tests, the benchmark before (BEFORE=, the kept code) and after
    # twice, Nsight Compute at 16384^2/512.
    jc) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before bench mandel-before bench ncu-16k ;;
    # ... kept. Before (BEFORE=, without it), with 128-step bursts (VARIANT=) and this build,
    # twice; then every GPU test and memcheck over the Mandelbrot tests.
    jd) bash scripts/gpu/run.sh smi mandel-before mandel-variant bench mandel-before mandel-variant bench tests mandel-memcheck ;;
    je) bash scripts/gpu/run.sh smi mandel-racecheck mandel-synccheck mandel-initcheck ;;
    # Trial, reverted (run 167): a pixel's place in its item (row and column, line and
    # offset) without integer division: the benchmark before (BEFORE=) and after, twice;
    # every GPU test, memcheck.
    jf) bash scripts/gpu/run.sh smi mandel-smoke mandel-before bench mandel-before bench tests mandel-memcheck ;;
    # Session 19. The review's cleanup of the in-block code (one loop for a block's fills,
    # a warp's idle count taken once) against the kept code (BEFORE=), and a trial build
    # with 8 blocks of the refinement an SM (32 registers, VARIANT=), twice; the Mandelbrot
    # tests; Nsight Compute on the goal points' two kernels for this build and the trial.
    jg) bash scripts/gpu/run.sh smi mandel-tests mandel-before mandel-variant bench mandel-before mandel-variant bench ncu-goals
        NCU_BIN=.carry/variant/cudalens NCU_TAG=variant bash scripts/gpu/run.sh ncu-goals ;;
    # Trial: the nested refinement in one grid (line tiles, then a block per level-0 cell
    # that starts once its four units are done). The Mandelbrot and deep-view tests,
    # memcheck over them; the benchmark of the kept code (BEFORE=), the cleanup (VARIANT=)
    # and this build, twice; Nsight Compute on the one grid at the goal points.
    jh) bash scripts/gpu/run.sh smi mandel-tests deep-tests deep-memcheck mandel-before mandel-variant bench mandel-before mandel-variant bench
        NCU_KERNELS=mandel_ms_one_grid_f32 NCU_LAUNCHES=1 NCU_TAG=one-grid bash scripts/gpu/run.sh ncu-goals ;;
    # Trial, reverted (no measurable gain): cells (and the fused kernel's undecided cells)
    # polling their units' flags with relaxed loads, acquiring them once released. Before
    # (BEFORE=, the cleanup's two grids), the one grid with acquire polling (VARIANT=) and
    # this build, twice.
    ji) bash scripts/gpu/run.sh smi mandel-tests deep-tests mandel-before mandel-variant bench mandel-before mandel-variant bench ;;
    # The nested refinement in one grid (line tiles, then a block per level-0 cell once its
    # four units are done) as the only form besides the fused one level: every GPU test on
    # both interop paths, memcheck over the Mandelbrot and deep-view tests; the benchmark
    # of the session's first code (BEFORE=), the cleanup's two grids (VARIANT=) and this
    # build, three times; the deep benchmark before and after. (Run 171: slower at window
    # sizes and on deep views, so the one grid is kept above 3840x2160, plain dwells.)
    jj) bash scripts/gpu/run.sh smi tests mandel-memcheck deep-memcheck mandel-before mandel-variant bench mandel-before mandel-variant bench mandel-before mandel-variant bench deep-before deep ;;
    # The session's final code (the one grid above 3840x2160 with plain dwells, two grids
    # elsewhere): the same steps as jj.
    jl) bash scripts/gpu/run.sh smi tests mandel-memcheck deep-memcheck mandel-before mandel-variant bench mandel-before mandel-variant bench mandel-before mandel-variant bench deep-before deep ;;
    # ... racecheck, synccheck and initcheck over the Mandelbrot tests (the sanitizer
    # module), Nsight Compute on the one grid at the goal points, and the deep benchmark
    # of the first code (BEFORE=), the cleanup (VARIANT=) and this build, three times.
    jm) NCU_KERNELS=mandel_ms_one_grid_f32 NCU_LAUNCHES=1 bash scripts/gpu/run.sh smi ncu-goals
        bash scripts/gpu/run.sh deep-before deep-variant deep deep-before deep-variant deep deep-before deep-variant deep mandel-racecheck mandel-synccheck mandel-initcheck ;;
    # The session's final commit: every GPU test on both interop paths, memcheck over the
    # Mandelbrot and deep-view tests, the benchmark.
    jn) bash scripts/gpu/run.sh smi tests mandel-memcheck deep-memcheck bench ;;
    # The review's code (launch_tiles takes units per tile; one test helper for the child
    # grids' skip): the Mandelbrot tests, memcheck over them, the benchmark.
    jo) bash scripts/gpu/run.sh smi mandel-tests mandel-memcheck bench ;;
    # The deep-view test again with its child-grids check restored beside the presets (runs
    # 133 and 137 ran the nested preset in its place), memcheck over deep and Mandelbrot tests.
    if) bash scripts/gpu/run.sh smi mandel-tests deep-tests deep-memcheck ;;
    # The session's final code: every GPU test on both interop paths, memcheck over the
    # Mandelbrot tests (the refinement presets included).
    ie) bash scripts/gpu/run.sh smi tests mandel-memcheck ;;
    # Issue 10, trial (run 136, reverted): the explorer's first interval with CUDA's context
    # touched after GL's work, between frames (bench --handover-probe's "touched" phases).
    id) bash scripts/gpu/run.sh smi handover-probe ;;
    # Issue 9: the explorer's refinement presets (nested, child grids) against the CPU, their
    # cost at window sizes (bench), the overlay of each drawn by the command line, memcheck;
    # then the X11 debs of the first screenshot call (scripts/gpu/screenshot.sh; carry .x1 too).
    ic) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests bench overlay-presets mandel-memcheck
        bash scripts/gpu/screenshot.sh unpack .x1 ;;
    # Trial, reverted (runs 131-132): the fused kernel's work handed out a warp at a time to a
    # resident grid. The Mandelbrot tests, the benchmark before (BEFORE=) and after, memcheck.
    ia) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before bench mandel-before bench mandel-memcheck ;;
    # Trial, reverted: the same with each chunk waiting for its cell's decision (EVALUATE as soon as the units
    # done so far differ), against a build that iterates while it waits (VARIANT=).
    ib) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-before bench mandel-variant mandel-before bench mandel-variant mandel-memcheck ;;
    hx) export SOAK_VARIANTS="auto:both" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=150
        bash scripts/gpu/run.sh smi mandel-tests explorer-memcheck soak ;;
    hw) bash scripts/gpu/run.sh smi memcheck faults ;;
    hu) export SOAK_WARM_UP=4000
        # The Mandelbrot renderer's trim frees everything it holds in the memory pool and
        # gives the pool's unused chunks back: GPU tests, memcheck, the soak.
        SOAK_VARIANTS="auto:both" SOAK_FRAMES=10000 SOAK_SECONDS=150 bash scripts/gpu/run.sh smi tests mandel-memcheck explorer-memcheck soak ;;
    hv) export SOAK_WARM_UP=4000
        SOAK_VARIANTS="auto:both" SOAK_FRAMES=40000 SOAK_SECONDS=375 bash scripts/gpu/run.sh smi soak ;;
    hs) export SOAK_WARM_UP=4000
        # The soak as hostile.sh now runs it (one rayon thread, no tcache): 10 000 frames
        # of each variant, then 40 000 of everything (ht: the explorer under memcheck).
        SOAK_VARIANTS="auto:both auto:filters:0" SOAK_FRAMES=10000 SOAK_SECONDS=150 bash scripts/gpu/run.sh smi soak
        SOAK_VARIANTS="auto:both" SOAK_FRAMES=40000 SOAK_SECONDS=300 bash scripts/gpu/run.sh soak ;;
    ht) bash scripts/gpu/run.sh smi mandel-memcheck explorer-memcheck ;;
    hr) export SOAK_WARM_UP=4000
        # Where the long soak's slow rises sit: the default memory pool at each checkpoint
        # and the sum of small mapping moves (the soak prints both); then with one rayon
        # thread and no tcache (threads' stacks and glibc's per-thread caches left out).
        SOAK_VARIANTS="auto:both" SOAK_FRAMES=40000 SOAK_SECONDS=200 bash scripts/gpu/run.sh smi soak
        SOAK_VARIANTS="auto:both" SOAK_FRAMES=10000 SOAK_SECONDS=200 RAYON_NUM_THREADS=1 GLIBC_TUNABLES=glibc.malloc.tcache_count=0 bash scripts/gpu/run.sh soak ;;
    hq) export SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        # Is the slow rise of malloc's "in use" with checks glibc's per-thread caches
        # (tcache chunks count as in use) or the app's? The same soak without them; then
        # the soak four times as long; then the soak once more as it was.
        SOAK_VARIANTS="auto:both auto:filters:0" GLIBC_TUNABLES=glibc.malloc.tcache_count=0 bash scripts/gpu/run.sh smi soak
        SOAK_VARIANTS="auto:both" SOAK_FRAMES=40000 SOAK_SECONDS=200 bash scripts/gpu/run.sh soak
        SOAK_VARIANTS="auto:both" bash scripts/gpu/run.sh soak ;;
    hp) export SOAK_VARIANTS="auto:both auto:filters:0 auto:both:1:random:none classic:both" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi resize-before resize soak tests apply ;;
    ho) export SOAK_VARIANTS="auto:both auto:filters:0" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi tests apply soak ;;
    hn) export SOAK_PRELOAD=$PWD/.carry/probe/map_trace.so SOAK_VARIANTS="auto:both auto:filters:0 auto:filters:0:random:none:same-shape auto:none:1:random:none" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak apply tests
        cp /tmp/hostile/map-trace-*.log "$OUT/" 2>/dev/null ;;
    hm) export SOAK_PRELOAD=$PWD/.carry/probe/map_trace.so SOAK_VARIANTS="auto:both auto:filters:0:random:none:same-shape" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak
        cp /tmp/hostile/map-trace-*.log "$OUT/" 2>/dev/null ;;
    hl) bash scripts/gpu/run.sh smi faults apply ;;
    hk) export SOAK_VARIANTS="auto:filters:1 auto:both:1:random:none auto:both:1:fixed" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak ;;
    hi) export SOAK_VARIANTS="classic:filters:0 classic:both classic:none:1:random:none" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak ;;
    hh) export SOAK_VARIANTS="auto:both auto:filters:0" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi tests apply soak ;;
    hg) export SOAK_VARIANTS="auto:both auto:filters:0 auto:mandelbrot:0:random:none auto:both" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak
        # The one 4 MiB block over a long run: does anything follow it?
        export SOAK_VARIANTS="auto:filters:0:random:none:same-shape" SOAK_FRAMES=60000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh soak ;;
    hf) export SOAK_VARIANTS="auto:filters:0 auto:both auto:none:1:random:none auto:filters:1:random:none auto:mandelbrot:0:random:none classic:filters:0 classic:both" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak apply tests ;;
    he) export SOAK_VARIANTS="auto:filters:0 auto:filters:0:random:none:same-shape auto:both auto:none:1:random:none auto:filters:1:random:none auto:mandelbrot:0:random:none classic:filters:0" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak apply tests ;;
    hd) export SOAK_VARIANTS="auto:filters:0 auto:filters:0:random:checked:same-shape auto:filters:0:random:none:same-shape auto:both auto:both:1:random:none classic:filters:0" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak tests ;;
    hc) export SOAK_VARIANTS="auto:filters:0 classic:filters:0" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak tests ;;
    hb) export SOAK_VARIANTS="auto:both auto:filters:0" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak tests ;;
    ha) export SOAK_VARIANTS="auto:filters:0:random:all auto:filters:0 auto:both" SOAK_FRAMES=10000 SOAK_WARM_UP=4000 SOAK_SECONDS=100
        bash scripts/gpu/run.sh smi soak ;;
    gz) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-racecheck mandel-before mandel-variant bench mandel-before mandel-variant bench ;;
    gy) bash scripts/gpu/run.sh smi mandel-racecheck mandel-initcheck mandel-synccheck mandel-tests deep-tests ;;
    gx) bash scripts/gpu/run.sh smi mandel-smoke mandel-tests mandel-memcheck peers-before4k peers4k peers-before8k peers8k ;;
    gq) bash scripts/gpu/run.sh smi handover-probe tests ;;
    gp) bash scripts/gpu/run.sh smi handover-probe mandel-tests deep-tests deep-memcheck ;;
    go) bash scripts/gpu/run.sh smi handover-probe-before handover-probe tests deep-memcheck ;;
    gn) bash scripts/gpu/run.sh smi handover-probe-before handover-probe filter-ba tests filters-memcheck mandel-memcheck peers4k peers8k sweep ;;
    gl) CUDALENS_SWEEP_CASES=median bash scripts/gpu/run.sh smi peers4k peers8k sweep handover-probe ncu-median-sweep ;;
    gi) REPEAT=5 bash scripts/gpu/run.sh smi handover ;;
    gc) export SOAK_VARIANTS="auto:none:1 auto:filters:0" SOAK_FRAMES=6000 SOAK_WARM_UP=1000 SOAK_SECONDS=50
        bash scripts/gpu/run.sh smi soak ;;
    h) SANITIZER_SECONDS=170 bash scripts/gpu/run.sh smi tests memcheck racecheck before4k peers4k before8k peers8k ;;
esac
for f in summary.txt hostile.log soak.txt; do
    [ -f "$HOSTILE/$f" ] && cp "$HOSTILE/$f" "$OUT/hostile-$f"
done
[ -f "$HOSTILE/summary.txt" ] && cat "$HOSTILE/summary.txt"
exit 0

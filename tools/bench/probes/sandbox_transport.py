"""What running a user kernel in a helper process costs per frame, by transport.

Measures, on one GPU, a 4K and an 8K RGBA frame through a trivial invert kernel:
  in-process      launch + stream sync in this process (the floor);
  ipc-sync        the image in device memory shared by CUDA IPC; the parent sends "run" over a
                  pipe, the child launches on the shared memory, syncs, answers;
  ipc-event       as ipc-sync, but the child answers at once and the parent waits on an
                  interprocess event (no child-side sync);
  pipe            the pipe round trip alone (no GPU work), the messaging floor;
  host-copy       the image through pinned host memory both ways (D2H, child H2D + run + D2H,
                  H2D), as a sandbox without device sharing would do;
  three-here      three launches + syncs in this process (a stage before, the kernel, a stage
                  after, all in one context);
  alternate       the same three with the middle one in the child (ipc-sync): the frame's
                  pattern, this process's GPU work on either side of the child's;
  child-three     all three launches + syncs in the child, none here: a frame wholly in the
                  helper (compare with three-here).
Medians of 200 after 20 warm-up frames, in ms. Needs CuPy. Usage: python3 sandbox_transport.py

With --fault: the child writes through a wild pointer; prints whether this process's next
kernel still runs (run it under MPS to see whether MPS contains a client's fault).
"""
import multiprocessing as mp
import statistics
import time

SRC = r"""
extern "C" __global__ void invert(unsigned int* p, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) p[i] = p[i] ^ 0x00ffffffu;
}
extern "C" __global__ void wild(unsigned int* p, unsigned long long n) {
    ((unsigned int*)0x10)[threadIdx.x] = (unsigned int)n;
}
"""
import sys
WARM, N = 20, 200


def launch(cp, kern, arr):
    n = arr.size
    kern(((n + 255) // 256,), (256,), (arr, cp.uint64(n)))


def child(conn, handle, ev_handle, n):
    import cupy as cp
    ptr = cp.cuda.runtime.ipcOpenMemHandle(handle)
    mem = cp.cuda.UnownedMemory(ptr, n * 4, None)
    arr = cp.ndarray((n,), cp.uint32, cp.cuda.MemoryPointer(mem, 0))
    kern = cp.RawKernel(SRC, "invert")
    ev = cp.cuda.Event(block=False, disable_timing=True, interprocess=True)
    ev.ptr  # keep
    ev_ptr = cp.cuda.runtime.ipcOpenEventHandle(ev_handle)
    stream = cp.cuda.Stream(non_blocking=True)
    host = cp.cuda.alloc_pinned_memory(n * 4)
    import numpy as np
    host_view = np.frombuffer(host, np.uint32, n)
    while True:
        msg = conn.recv()
        if msg == "quit":
            break
        if msg == "ping":
            conn.send("ok")
            continue
        with stream:
            if msg == "host":
                arr.set(host_view, stream=stream)  # stands for the H2D of the shared host copy
                launch(cp, kern, arr)
                arr.get(stream=stream, out=host_view)
                stream.synchronize()
                conn.send("ok")
            elif msg == "sync":
                launch(cp, kern, arr)
                stream.synchronize()
                conn.send("ok")
            elif msg == "three":
                for _ in range(3):
                    launch(cp, kern, arr)
                    stream.synchronize()
                conn.send("ok")
            elif msg == "wild":
                try:
                    cp.RawKernel(SRC, "wild")((1,), (32,), (arr, cp.uint64(n)))
                    stream.synchronize()
                    conn.send("the wild write did not fault")
                except Exception as e:  # noqa: BLE001 - the fault is what is probed
                    conn.send(f"child: {e}")
            elif msg == "event":
                launch(cp, kern, arr)
                cp.cuda.runtime.eventRecord(ev_ptr, stream.ptr)
                conn.send("ok")


def median_ms(fn):
    for _ in range(WARM):
        fn()
    ts = []
    for _ in range(N):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def main():
    import cupy as cp
    import numpy as np
    print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    for w, h in ((3840, 2160), (7680, 4320)):
        n = w * h
        arr = cp.arange(n, dtype=cp.uint32)
        kern = cp.RawKernel(SRC, "invert")
        stream = cp.cuda.Stream(non_blocking=True)
        ev = cp.cuda.Event(block=False, disable_timing=True, interprocess=True)
        handle = cp.cuda.runtime.ipcGetMemHandle(arr.data.ptr)
        ev_handle = cp.cuda.runtime.ipcGetEventHandle(ev.ptr)
        ctx = mp.get_context("spawn")
        parent, conn = ctx.Pipe()
        p = ctx.Process(target=child, args=(conn, handle, ev_handle, n))
        p.start()
        parent.send("ping")
        parent.recv()

        def in_process():
            with stream:
                launch(cp, kern, arr)
            stream.synchronize()

        def ipc_sync():
            stream.synchronize()
            parent.send("sync")
            parent.recv()

        def ipc_event():
            stream.synchronize()
            parent.send("event")
            parent.recv()
            stream.wait_event(ev)
            stream.synchronize()

        def pipe():
            parent.send("ping")
            parent.recv()

        pinned = cp.cuda.alloc_pinned_memory(n * 4)
        host = np.frombuffer(pinned, np.uint32, n)

        def host_copy():
            with stream:
                arr.get(stream=stream, out=host)
            stream.synchronize()
            parent.send("host")
            parent.recv()
            with stream:
                arr.set(host, stream=stream)
            stream.synchronize()

        def three_here():
            in_process()
            in_process()
            in_process()

        def alternate():
            in_process()
            ipc_sync()
            in_process()

        def child_three():
            stream.synchronize()
            parent.send("three")
            parent.recv()

        if "--fault" in sys.argv:
            three_here()
            parent.send("wild")
            print(parent.recv())
            try:
                three_here()
                print("parent: its next kernels ran")
            except Exception as e:  # noqa: BLE001 - the fault is what is probed
                print(f"parent: {e}")
            p.kill()
            return

        r = {k: median_ms(f) for k, f in [("in-process", in_process), ("ipc-sync", ipc_sync),
                                           ("ipc-event", ipc_event), ("pipe", pipe),
                                           ("host-copy", host_copy), ("three-here", three_here),
                                           ("alternate", alternate),
                                           ("child-three", child_three)]}
        parent.send("quit")
        p.join()
        base = r["in-process"]
        print(f"{w}x{h}: " + ", ".join(f"{k} {v:.4f} ms (+{v - base:.4f})" for k, v in r.items()))
        print(f"{w}x{h}: the child's kernel between two of ours costs "
              f"{r['alternate'] - r['three-here']:.4f} ms over all three here; "
              f"alone (ipc-sync) {r['ipc-sync'] - base:.4f} ms over in-process; all three in "
              f"the child {r['child-three'] - r['three-here']:.4f} ms over all three here")


if __name__ == "__main__":
    main()

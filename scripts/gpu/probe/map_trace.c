/* map_trace: an LD_PRELOAD shim that names which library maps (and unmaps) large
 * /dev/nvidiactl regions, to place the driver's 4 MiB blocks in the soak (issue 8).
 * Logs "map|unmap LENGTH ADDRESS CALLER-LIBRARY" to $MAP_TRACE_LOG for every mmap of
 * /dev/nvidiactl of at least 1 MiB, and every munmap of a region it logged.
 * Build: gcc -O2 -shared -fPIC -o map_trace.so map_trace.c -ldl (scripts/gpu/probe/build.sh) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SLOTS 4096
static void *addrs[SLOTS];
static size_t lens[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *lib_of(void *ret) {
    Dl_info info;
    if (ret && dladdr(ret, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        return slash ? slash + 1 : info.dli_fname;
    }
    return "?";
}

static void log_line(const char *what, size_t len, void *addr, const char *lib) {
    const char *path = getenv("MAP_TRACE_LOG");
    if (!path) return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return;
    char line[256];
    int n = snprintf(line, sizeof line, "%s %zu %p %s\n", what, len, addr, lib);
    if (n > 0) (void)!write(fd, line, (size_t)n);
    close(fd);
}

static int is_nvidiactl(int fd) {
    if (fd < 0) return 0;
    char link[64], target[128];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return 0;
    target[n] = 0;
    return strcmp(target, "/dev/nvidiactl") == 0;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    /* The system call itself: no dlsym, which may allocate and so map again. */
    void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED && len >= (1u << 20) && is_nvidiactl(fd)) {
        const char *lib = lib_of(__builtin_return_address(0));
        pthread_mutex_lock(&lock);
        for (int i = 0; i < SLOTS; i++)
            if (!addrs[i]) { addrs[i] = p; lens[i] = len; break; }
        pthread_mutex_unlock(&lock);
        log_line("map", len, p, lib);
    }
    return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    __attribute__((alias("mmap")));

int munmap(void *addr, size_t len) {
    int logged = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SLOTS; i++)
        if (addrs[i] == addr) { addrs[i] = NULL; logged = 1; break; }
    pthread_mutex_unlock(&lock);
    if (logged) log_line("unmap", len, addr, lib_of(__builtin_return_address(0)));
    return (int)syscall(SYS_munmap, addr, len);
}

/* bench_jpeg.c - JPEG decoding on the CPU: the reader against libjpeg-turbo itself and
 * `djpeg -grayscale`, and the share of decoding in `satfeat detect` over a folder of JPEGs.
 *
 * usage: satfeat_bench_jpeg SRC SATFEAT WORKDIR [--repeat R] [--frames N] [--passes P]
 *
 * SRC (e.g. data/scene.png) is resized bilinearly to 1920x1080, given colour planes that differ
 * (R = gray, G = gray + a horizontal ramp, B = 255 - gray) and encoded at quality 90, 4:2:0, by
 * libjpeg-turbo (WORKDIR/photo.jpg). Then, median of R runs each (default 21):
 *   satfeat   satfeat_image_load_gray8 of the file (what the CLI and Python call);
 *   libjpeg   the same file decoded in process by libjpeg directly to JCS_GRAYSCALE;
 *   djpeg     `djpeg -grayscale -pnm -outfile FILE.djpeg.pgm FILE` as a process (posix_spawn;
 *             its time includes the process start and the PGM write);
 *   djpeg-0   the same on a 16x16 JPEG: the process cost alone, so djpeg - djpeg-0 is the
 *             decode inside djpeg.
 * Every figure is given as wall time and as CPU time (user + system of the process, or of the
 * child for a spawned one): on a machine shared with other work the CPU time is the steadier.
 * Then N frames (default 100), each SRC resized with a different sub-pixel offset, are written to
 * WORKDIR/jpg as JPEGs and to WORKDIR/pgm as the PGMs of their decoded pixels, and timed:
 *   decode    satfeat_image_load_gray8 of the N JPEGs, one after the other (in process);
 *   detect    `SATFEAT detect WORKDIR/jpg --backend cpu -q -o WORKDIR/detect-jpg.txt` and on
 *             WORKDIR/pgm, alternating, P runs each (default 3), the fastest kept;
 * printing decode / detect-jpg (the share of decoding in the run) and
 * (detect-jpg - detect-pgm) / detect-jpg (the same share seen from the CLI). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, posix_spawn, mkdir */
#include "bench_clock.h"
#include "jpeg_testutil.h"
#include "satfeat.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

/* Bilinear resize of a w x h gray image to W x H, sampling source position ((x + 0.5) * w / W
 * - 0.5 + shift) so that frames of different `shift` differ. */
static uint8_t *resize(const uint8_t *s, int w, int h, int W, int H, double shift)
{
    uint8_t *d = malloc((size_t)W * (size_t)H);
    if (!d) return NULL;
    for (int y = 0; y < H; y++) {
        double fy = (y + 0.5) * h / H - 0.5 + shift * 0.5;
        fy = fy < 0 ? 0 : fy > h - 1 ? h - 1 : fy;
        const int y0 = (int)fy, y1 = y0 + 1 < h ? y0 + 1 : y0;
        const double ay = fy - y0;
        for (int x = 0; x < W; x++) {
            double fx = (x + 0.5) * w / W - 0.5 + shift;
            fx = fx < 0 ? 0 : fx > w - 1 ? w - 1 : fx;
            const int x0 = (int)fx, x1 = x0 + 1 < w ? x0 + 1 : x0;
            const double ax = fx - x0;
            const double top = s[y0 * w + x0] * (1 - ax) + s[y0 * w + x1] * ax;
            const double bot = s[y1 * w + x0] * (1 - ax) + s[y1 * w + x1] * ax;
            d[(size_t)y * (size_t)W + (size_t)x] = (uint8_t)(top * (1 - ay) + bot * ay + 0.5);
        }
    }
    return d;
}

/* Writes the frame of `shift` as a quality-90 4:2:0 colour JPEG; 0 on success. */
static int write_frame(const char *path, const uint8_t *src, int w, int h, double shift)
{
    enum { W = 1920, H = 1080 };
    uint8_t *g = resize(src, w, h, W, H, shift);
    uint8_t *rgb = malloc((size_t)W * H * 3);
    if (!g || !rgb) return -1;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        const int ramp = g[i] + (int)(i % W) * 64 / W;
        rgb[3 * i] = g[i];
        rgb[3 * i + 1] = (uint8_t)(ramp > 255 ? 255 : ramp);
        rgb[3 * i + 2] = (uint8_t)(255 - g[i]);
    }
    test_jpeg_opts o = {.quality = 90};
    const int rc = test_jpeg_write(path, rgb, W, H, 3, &o);
    free(rgb);
    free(g);
    return rc;
}

/* A wall time and a CPU time, ms. */
typedef struct timing {
    double wall, cpu;
} timing;

/* CPU time (user + system) of this process, ms. */
static double cpu_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* CPU time (user + system) of the children waited for so far, ms. */
static double children_cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
}

/* Runs argv as a child process; its wall and CPU time (wall -1 on failure). */
static timing run_child(char *const argv[])
{
    timing t = {-1, -1};
    pid_t pid;
    const double c0 = children_cpu_ms(), t0 = bench_now_ms();
    if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0) return t;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return t;
    t.wall = bench_now_ms() - t0;
    t.cpu = children_cpu_ms() - c0;
    return t;
}

/* Median wall and median CPU time of R decodes of `path`; kind 0 satfeat, 1 libjpeg, 2 djpeg. */
static timing median_decode(const char *path, int kind, int repeat)
{
    timing m = {-1, -1};
    double *wall = malloc((size_t)repeat * sizeof *wall), *cpu = malloc((size_t)repeat * sizeof *cpu);
    if (!wall || !cpu) return m;
    for (int r = 0; r < repeat; r++) {
        const double t0 = bench_now_ms(), c0 = cpu_now_ms();
        if (kind == 0) {
            uint8_t *px = NULL;
            int w, h;
            if (satfeat_image_load_gray8(NULL, path, &px, &w, &h) != SATFEAT_OK) return m;
            satfeat_free(px);
        } else if (kind == 1) {
            int w, h;
            free(test_jpeg_decode(path, 1, &w, &h, NULL, NULL));
        } else {
            char out[4200]; /* a file beside the input: benchmarks never write to /dev nodes */
            snprintf(out, sizeof out, "%s.djpeg.pgm", path);
            char *argv[] = {"djpeg", "-grayscale", "-pnm", "-outfile", out, (char *)path, NULL};
            const timing c = run_child(argv);
            if (c.wall < 0) return m;
            wall[r] = c.wall;
            cpu[r] = c.cpu;
            continue;
        }
        wall[r] = bench_now_ms() - t0;
        cpu[r] = cpu_now_ms() - c0;
    }
    bench_sort(wall, (size_t)repeat);
    bench_sort(cpu, (size_t)repeat);
    m.wall = wall[repeat / 2];
    m.cpu = cpu[repeat / 2];
    free(wall);
    free(cpu);
    return m;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s SRC SATFEAT WORKDIR [--repeat R] [--frames N] [--passes P]\n",
                argv[0]);
        return 2;
    }
    int repeat = 21, frames = 100, passes = 3;
    for (int i = 4; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--repeat")) repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames")) frames = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--passes")) passes = atoi(argv[i + 1]);
    }
    if (repeat < 1 || frames < 1 || passes < 1) return 2;
    uint8_t *src = NULL;
    int w, h;
    if (satfeat_image_load_gray8(NULL, argv[1], &src, &w, &h) != SATFEAT_OK) return 1;
    const char *dir = argv[3];
    char path[4096], jdir[4096], pdir[4096];
    snprintf(jdir, sizeof jdir, "%s/jpg", dir);
    snprintf(pdir, sizeof pdir, "%s/pgm", dir);
    mkdir(dir, 0777);
    mkdir(jdir, 0777);
    mkdir(pdir, 0777);

    snprintf(path, sizeof path, "%s/photo.jpg", dir);
    if (write_frame(path, src, w, h, 0.0) != 0) return 1;
    struct stat st;
    stat(path, &st);
    printf("file: 1920x1080 quality 90 4:2:0, %lld bytes; median of %d runs\n",
           (long long)st.st_size, repeat);
    const timing sf = median_decode(path, 0, repeat), lj = median_decode(path, 1, repeat),
                 dj = median_decode(path, 2, repeat);
    char tiny[4200];
    snprintf(tiny, sizeof tiny, "%s/tiny.jpg", dir);
    uint8_t small[16 * 16 * 3] = {0};
    if (test_jpeg_write(tiny, small, 16, 16, 3, NULL) != 0) return 1;
    const timing d0 = median_decode(tiny, 2, repeat);
    printf("decode ms (wall / cpu): satfeat %.2f / %.2f  libjpeg %.2f / %.2f  djpeg %.2f / %.2f"
           "  djpeg-0 %.2f / %.2f\n",
           sf.wall, sf.cpu, lj.wall, lj.cpu, dj.wall, dj.cpu, d0.wall, d0.cpu);
    printf("ratios (wall / cpu): satfeat/libjpeg %.3f / %.3f  satfeat/djpeg %.3f / %.3f  "
           "satfeat/(djpeg - djpeg-0) %.3f / %.3f\n",
           sf.wall / lj.wall, sf.cpu / lj.cpu, sf.wall / dj.wall, sf.cpu / dj.cpu,
           sf.wall / (dj.wall - d0.wall), sf.cpu / (dj.cpu - d0.cpu));

    timing dec = {0, 0};
    for (int k = 0; k < frames; k++) {
        char jp[4200], pp[4200];
        snprintf(jp, sizeof jp, "%s/f%03d.jpg", jdir, k);
        snprintf(pp, sizeof pp, "%s/f%03d.pgm", pdir, k);
        if (write_frame(jp, src, w, h, 0.37 * k) != 0) return 1;
        int fw, fh;
        uint8_t *px = test_jpeg_decode(jp, 1, &fw, &fh, NULL, NULL);
        if (!px || satfeat_image_write_pnm(NULL, pp, px, (size_t)fw, fw, fh, 1) != SATFEAT_OK)
            return 1;
        free(px);
    }
    for (int k = 0; k < frames; k++) {
        char jp[4200];
        snprintf(jp, sizeof jp, "%s/f%03d.jpg", jdir, k);
        const double t0 = bench_now_ms(), c0 = cpu_now_ms();
        uint8_t *px = NULL;
        int fw, fh;
        if (satfeat_image_load_gray8(NULL, jp, &px, &fw, &fh) != SATFEAT_OK) return 1;
        dec.wall += bench_now_ms() - t0;
        dec.cpu += cpu_now_ms() - c0;
        satfeat_free(px);
    }
    char oj[4200], op[4200];
    snprintf(oj, sizeof oj, "%s/detect-jpg.txt", dir);
    snprintf(op, sizeof op, "%s/detect-pgm.txt", dir);
    char *cj[] = {argv[2], "detect", jdir, "--backend", "cpu", "-q", "-o", oj, NULL};
    char *cp[] = {argv[2], "detect", pdir, "--backend", "cpu", "-q", "-o", op, NULL};
    timing rj = {1e300, 1e300}, rp = {1e300, 1e300};
    for (int pass = 0; pass < passes; pass++) {
        const timing j = run_child(cj), p = run_child(cp);
        if (j.wall < 0 || p.wall < 0) return 1;
        rj.wall = j.wall < rj.wall ? j.wall : rj.wall;
        rj.cpu = j.cpu < rj.cpu ? j.cpu : rj.cpu;
        rp.wall = p.wall < rp.wall ? p.wall : rp.wall;
        rp.cpu = p.cpu < rp.cpu ? p.cpu : rp.cpu;
    }
    printf("%d frames (wall / cpu ms): decode %.0f / %.0f (%.2f / %.2f per frame); detect jpg "
           "%.0f / %.0f, pgm %.0f / %.0f\n",
           frames, dec.wall, dec.cpu, dec.wall / frames, dec.cpu / frames, rj.wall, rj.cpu,
           rp.wall, rp.cpu);
    printf("decoding share (wall / cpu): decode/detect-jpg %.3f / %.3f  "
           "(detect-jpg - detect-pgm)/detect-jpg %.3f / %.3f\n",
           dec.wall / rj.wall, dec.cpu / rj.cpu, (rj.wall - rp.wall) / rj.wall,
           (rj.cpu - rp.cpu) / rj.cpu);
    satfeat_free(src);
    return 0;
}

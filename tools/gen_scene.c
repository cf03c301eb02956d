/* gen_scene.c - renders the synthetic test scene data/scene.png.
 *
 * A deterministic 640 x 480 8-bit gray image with features at many scales for the SAT and
 * detector tests and the quick start: a smooth background gradient, anti-aliased dark and bright
 * discs of radius 2..40, smooth dark and bright blobs of radius 3..36, a grid of small spots,
 * a checkerboard patch, rectangles with sub-pixel edges, thin bars and mild noise.
 *
 * Only +, -, *, / and sqrt are used on doubles (all correctly rounded in IEEE 754) and the noise
 * is an integer hash, so the output is bit-identical on every conforming platform.
 *
 * usage: satfeat_gen_scene OUTPUT.png
 */
#include "satfeat.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SCENE_W 640
#define SCENE_H 480

/* A floating-point canvas the shapes are painted on; rounded to 8 bits at the end. */
typedef struct canvas {
    double v[SCENE_H][SCENE_W];
} canvas;

static double clamp01(double a)
{
    return a < 0.0 ? 0.0 : (a > 1.0 ? 1.0 : a);
}

/* Blends `level` in with weight a in [0, 1]. */
static void blend(canvas *c, int x, int y, double level, double a)
{
    c->v[y][x] = c->v[y][x] * (1.0 - a) + level * a;
}

/* Anti-aliased disc: coverage falls from 1 to 0 over one pixel around radius r. */
static void disc(canvas *c, double cx, double cy, double r, double level)
{
    for (int y = (int)(cy - r - 2); y <= (int)(cy + r + 2); y++)
        for (int x = (int)(cx - r - 2); x <= (int)(cx + r + 2); x++) {
            if (x < 0 || y < 0 || x >= SCENE_W || y >= SCENE_H) continue;
            double dx = x - cx, dy = y - cy;
            double a = clamp01(r + 0.5 - sqrt(dx * dx + dy * dy));
            if (a > 0.0) blend(c, x, y, level, a);
        }
}

/* Smooth blob: adds amp * (1 - (d/r)^2)^3 inside radius r (a bell close to a Gaussian). */
static void blob(canvas *c, double cx, double cy, double r, double amp)
{
    for (int y = (int)(cy - r - 1); y <= (int)(cy + r + 1); y++)
        for (int x = (int)(cx - r - 1); x <= (int)(cx + r + 1); x++) {
            if (x < 0 || y < 0 || x >= SCENE_W || y >= SCENE_H) continue;
            double dx = x - cx, dy = y - cy;
            double t = (dx * dx + dy * dy) / (r * r);
            if (t >= 1.0) continue;
            double s = 1.0 - t;
            c->v[y][x] += amp * s * s * s;
        }
}

/* Axis-aligned rectangle [x0, x1) x [y0, y1) with fractional edges, anti-aliased by area. */
static void rect(canvas *c, double x0, double y0, double x1, double y1, double level)
{
    for (int y = (int)y0 - 1; y <= (int)y1 + 1; y++)
        for (int x = (int)x0 - 1; x <= (int)x1 + 1; x++) {
            if (x < 0 || y < 0 || x >= SCENE_W || y >= SCENE_H) continue;
            /* pixel (x, y) covers [x - 0.5, x + 0.5) */
            double ax = clamp01((x + 0.5 < x1 ? x + 0.5 : x1) - (x - 0.5 > x0 ? x - 0.5 : x0));
            double ay = clamp01((y + 0.5 < y1 ? y + 0.5 : y1) - (y - 0.5 > y0 ? y - 0.5 : y0));
            if (ax * ay > 0.0) blend(c, x, y, level, ax * ay);
        }
}

/* Integer hash of a pixel position (a 32-bit avalanche mix) for deterministic noise. */
static uint32_t hash_xy(uint32_t x, uint32_t y)
{
    uint32_t h = x * 0x9e3779b1u ^ (y + 0x7f4a7c15u) * 0x85ebca77u;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

static void render(canvas *c)
{
    /* Background: a gentle diagonal gradient from 70 to 200. */
    for (int y = 0; y < SCENE_H; y++)
        for (int x = 0; x < SCENE_W; x++)
            c->v[y][x] = 70.0 + 90.0 * x / (SCENE_W - 1) + 40.0 * y / (SCENE_H - 1);

    /* Row 1: dark discs, row 2: bright discs, radius 2 .. 40, centres on fractional positions. */
    static const double radii[10] = {2, 3, 4, 6, 8, 12, 16, 24, 32, 40};
    double cursor = 12.0;
    for (int i = 0; i < 10; i++) {
        disc(c, cursor + radii[i] + 0.3, 56.0, radii[i], 20.0);
        disc(c, cursor + radii[i] + 0.6, 160.25, radii[i], 240.0);
        cursor += 2.0 * radii[i] + 14.0;
    }

    /* Row 3: smooth blobs of radius 3 .. 36, alternating dark and bright. */
    static const double blob_radii[8] = {3, 5, 7, 10, 14, 20, 28, 36};
    cursor = 12.0;
    for (int i = 0; i < 8; i++) {
        blob(c, cursor + blob_radii[i], 262.5, blob_radii[i], i % 2 ? 90.0 : -80.0);
        cursor += 2.0 * blob_radii[i] + 14.0;
    }

    /* Right column: a 4 x 7 grid of small spots (radius 2..5), bright and dark in turn. */
    for (int j = 0; j < 7; j++)
        for (int i = 0; i < 4; i++) {
            double r = 2.0 + (double)((i + j) % 4);
            double level = (i + j) % 2 ? 235.0 : 25.0;
            if (j % 3 == 2)
                blob(c, 482.0 + 42.0 * i, 28.0 + 40.0 * j, 2.0 * r, level > 128 ? 70.0 : -70.0);
            else
                disc(c, 482.0 + 42.0 * i + 0.25 * j, 28.0 + 40.0 * j, r, level);
        }

    /* Bottom left: a checkerboard of 8-pixel squares. */
    for (int y = 330; y < 426; y++)
        for (int x = 16; x < 176; x++)
            c->v[y][x] = (((x - 16) / 8 + (y - 330) / 8) % 2) ? 210.0 : 40.0;

    /* Rectangles with sub-pixel edges, a bright blob inside the dark one, thin dark bars. */
    rect(c, 200.3, 330.6, 290.7, 410.2, 225.0);
    rect(c, 310.5, 345.25, 360.75, 465.5, 35.0);
    blob(c, 335.6, 405.0, 20.0, 150.0);
    for (int k = 0; k < 4; k++) rect(c, 390.0 + 18.0 * k, 330.0, 391.0 + 19.0 * k, 460.0, 30.0);
    disc(c, 560.5, 400.5, 40.0, 15.0);
    disc(c, 560.5, 400.5, 22.0, 245.0);
    disc(c, 560.5, 400.5, 8.0, 15.0);
    rect(c, 200.0, 430.0, 290.0, 468.0, 120.0);
    for (int k = 0; k < 5; k++) disc(c, 210.0 + 17.5 * k, 449.0, 3.0 + k, k % 2 ? 250.0 : 0.0);

    /* Mild noise: an integer offset in [-2, 2] per pixel. */
    for (int y = 0; y < SCENE_H; y++)
        for (int x = 0; x < SCENE_W; x++)
            c->v[y][x] += (double)((int)(hash_xy((uint32_t)x, (uint32_t)y) % 5u) - 2);
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: satfeat_gen_scene OUTPUT.png\n"
                        "Renders the deterministic 640x480 test scene (data/scene.png).\n");
        return 2;
    }
    canvas *c = malloc(sizeof *c);
    uint8_t *px = malloc((size_t)SCENE_W * SCENE_H);
    if (!c || !px) {
        fprintf(stderr, "satfeat_gen_scene: out of memory\n");
        free(c);
        free(px);
        return 1;
    }
    render(c);
    for (int y = 0; y < SCENE_H; y++)
        for (int x = 0; x < SCENE_W; x++) {
            double v = floor(c->v[y][x] + 0.5);
            px[(size_t)y * SCENE_W + (size_t)x] =
                (uint8_t)(v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v));
        }
    free(c);
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0);
    if (st == SATFEAT_OK)
        st = satfeat_image_write_png(ctx, argv[1], px, SCENE_W, SCENE_W, SCENE_H, 1);
    if (st != SATFEAT_OK)
        fprintf(stderr, "satfeat_gen_scene: %s: %s\n", satfeat_status_string(st),
                ctx ? satfeat_ctx_last_error(ctx) : "");
    else
        printf("wrote %s (%dx%d)\n", argv[1], SCENE_W, SCENE_H);
    satfeat_ctx_delete(ctx);
    free(px);
    return st == SATFEAT_OK ? 0 : 1;
}

/* ar_target_io.c - the target file (satfeat_ar_target_save / _load), little-endian binary:
 *   "SFARTGT\0" magic, u32 version (2), i32 width, i32 height, f64 width_m, i32 scales, i32 dim,
 *   u64 n; n records of f64 x, y, size, angle, response, i32 laplacian, i32 scale, dim x f32
 *   descriptor; then (version 2) the photometric samples (ar_photo.h): u32 levels, levels x u32
 *   count, and sum(count) records of f32 u, v, value; u64 FNV-1a of every byte after the
 *   version and before the checksum. Version 1 files (no samples) still load: their poses are
 *   the features' alone.
 * The loader checks the size the header implies against the file's size before allocating,
 * then every field, so a hostile file gives a message and never a crash or a huge allocation. */
#define _XOPEN_SOURCE 700 /* fileno */
#include "ar/ar_target_internal.h"
#include "src/file_input.h"
#include "src/file_replace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define AR_MAGIC "SFARTGT"   /* with its terminating zero: 8 bytes */
#define AR_VERSION 2u
#define AR_HEADER_BYTES (8 + 4 + 4 + 4 + 8 + 4 + 4 + 8)
#define AR_MAX_FEATURES ((uint64_t)1 << 24)

static size_t record_bytes(int dim) { return 5 * 8 + 4 + 4 + 4 * (size_t)dim; }

/* Bytes of the photometric part: levels, counts, 12 a sample. */
static size_t photo_bytes(const satfeat_ar_photo *p)
{
    const size_t n = p->levels ? p->first[p->levels] : 0;
    return 4 + 4 * (size_t)p->levels + 12 * n;
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k));
}
static void put_u32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}
static void put_f64(uint8_t *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    put_u64(p, v);
}
static void put_f32(uint8_t *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    put_u32(p, v);
}
static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = (v << 8) | p[k];
    return v;
}
static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static double get_f64(const uint8_t *p)
{
    const uint64_t v = get_u64(p);
    double d;
    memcpy(&d, &v, 8);
    return d;
}
static float get_f32(const uint8_t *p)
{
    const uint32_t v = get_u32(p);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

satfeat_status satfeat_ar_target_save(satfeat_ctx *ctx, const satfeat_ar_target *t,
                                      const char *path)
{
    if (!t || !path) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "ar target save: NULL argument");
    const size_t rec = record_bytes(t->dim);
    const size_t total = AR_HEADER_BYTES + t->n * rec + photo_bytes(&t->photo) + 8;
    uint8_t *buf = malloc(total);
    if (!buf) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar target save: out of memory");
    memcpy(buf, AR_MAGIC, 8);
    put_u32(buf + 8, AR_VERSION);
    put_u32(buf + 12, (uint32_t)t->width);
    put_u32(buf + 16, (uint32_t)t->height);
    put_f64(buf + 20, t->width_m);
    put_u32(buf + 28, (uint32_t)t->scales);
    put_u32(buf + 32, (uint32_t)t->dim);
    put_u64(buf + 36, (uint64_t)t->n);
    for (size_t i = 0; i < t->n; i++) {
        uint8_t *r = buf + AR_HEADER_BYTES + i * rec;
        const satfeat_keypoint *k = &t->kp[i];
        put_f64(r, k->x);
        put_f64(r + 8, k->y);
        put_f64(r + 16, k->size);
        put_f64(r + 24, k->angle);
        put_f64(r + 32, k->response);
        put_u32(r + 40, (uint32_t)k->laplacian);
        put_u32(r + 44, (uint32_t)k->octave);
        for (int d = 0; d < t->dim; d++) put_f32(r + 48 + 4 * d, t->desc[i * (size_t)t->dim + d]);
    }
    uint8_t *q = buf + AR_HEADER_BYTES + t->n * rec;
    const satfeat_ar_photo *ph = &t->photo;
    put_u32(q, (uint32_t)ph->levels);
    q += 4;
    for (int k = 0; k < ph->levels; k++, q += 4) put_u32(q, ph->first[k + 1] - ph->first[k]);
    for (uint32_t i = 0; ph->levels && i < ph->first[ph->levels]; i++, q += 12) {
        put_f32(q, ph->u[i]);
        put_f32(q + 4, ph->v[i]);
        put_f32(q + 8, ph->value[i]);
    }
    put_u64(buf + total - 8, fnv1a(buf + 12, total - 8 - 12));
    satfeat_replace w;
    satfeat_status st = satfeat_replace_open(ctx, path, &w);
    if (st == SATFEAT_OK) {
        const int ok = fwrite(buf, 1, total, w.file) == total;
        st = satfeat_replace_close(ctx, path, &w, ok, "ar target write", NULL);
    }
    free(buf);
    return st;
}

/* Checks one record and fills keypoint i of t; NULL when fine, else the reason. */
static const char *parse_record(const uint8_t *r, satfeat_ar_target *t, size_t i)
{
    satfeat_keypoint *k = &t->kp[i];
    memset(k, 0, sizeof *k);
    k->x = get_f64(r);
    k->y = get_f64(r + 8);
    k->size = get_f64(r + 16);
    k->angle = get_f64(r + 24);
    k->response = get_f64(r + 32);
    k->laplacian = (int)(int32_t)get_u32(r + 40);
    k->octave = (int)(int32_t)get_u32(r + 44);
    if (!isfinite(k->x) || !isfinite(k->y) || k->x < -0.5 || k->y < -0.5 ||
        k->x > t->width - 0.5 || k->y > t->height - 0.5)
        return "a position is not finite or lies off the reference";
    if (!(k->size > 0.0) || !isfinite(k->size) || !(k->angle >= 0.0 && k->angle <= 6.3) ||
        !isfinite(k->response))
        return "a size, angle or response is out of range or not finite";
    if (k->laplacian != 1 && k->laplacian != -1) return "a Laplacian sign is not -1 or +1";
    if (k->octave < 0 || k->octave >= t->scales) return "a scale index is out of range";
    k->sigma = 1.2 * k->size / 9.0;
    for (int d = 0; d < t->dim; d++) {
        const float v = get_f32(r + 48 + 4 * d);
        if (!isfinite(v)) return "a descriptor value is not finite";
        t->desc[i * (size_t)t->dim + d] = v;
    }
    return NULL;
}

static const char ar_photo_oom[] = "out of memory";

/* The photometric part of a version-2 file: `len` bytes at q (its level and sample counts
 * already checked against the file's size), its samples checked against the reference size
 * of t, into t->photo. NULL when fine, else the reason. */
static const char *parse_photo(const uint8_t *q, size_t len, satfeat_ar_target *t)
{
    const uint32_t levels = get_u32(q); /* levels and counts were checked with the size */
    const size_t n = (len - 4 - 4 * (size_t)levels) / 12;
    if (!satfeat_ar_photo_alloc(&t->photo, (int)levels, n)) return ar_photo_oom;
    uint32_t at = 0;
    for (uint32_t k = 0; k < levels; k++) {
        t->photo.first[k] = at;
        at += get_u32(q + 4 + 4 * k);
    }
    t->photo.first[levels] = at;
    const uint8_t *r = q + 4 + 4 * (size_t)levels;
    for (size_t i = 0; i < n; i++, r += 12) {
        const float u = get_f32(r), v = get_f32(r + 4), value = get_f32(r + 8);
        if (!(u >= -0.5f && u <= t->width - 0.5f && v >= -0.5f && v <= t->height - 0.5f))
            return "a photometric sample lies off the reference or is not finite";
        if (!(value >= 0.0f && value <= 255.0f))
            return "a photometric value is outside 0 .. 255 or not finite";
        t->photo.u[i] = u, t->photo.v[i] = v, t->photo.value[i] = value;
    }
    return NULL;
}

/* Parses a whole file held in memory; the size was checked against the budget. */
static satfeat_status parse(satfeat_ctx *ctx, const char *path, const uint8_t *buf, size_t size,
                            satfeat_ar_target **out)
{
#define BAD(...) satfeat_fail(ctx, SATFEAT_ERR_FORMAT, __VA_ARGS__)
    if (size < 12 || memcmp(buf, AR_MAGIC, 8) != 0)
        return BAD("ar target: %s: not a target file (bad magic)", path);
    const uint32_t version = get_u32(buf + 8);
    if (version != 1u && version != AR_VERSION)
        return BAD("ar target: %s: version %u is not supported (this library reads 1 and %u)",
                   path, version, AR_VERSION);
    if (size < AR_HEADER_BYTES + 8) return BAD("ar target: %s: truncated header", path);
    const int32_t w = (int32_t)get_u32(buf + 12), h = (int32_t)get_u32(buf + 16);
    const double width_m = get_f64(buf + 20);
    const int32_t scales = (int32_t)get_u32(buf + 28), dim = (int32_t)get_u32(buf + 32);
    const uint64_t n = get_u64(buf + 36);
    if (w < 1 || h < 1 || w > SATFEAT_IMAGE_MAX_SIDE || h > SATFEAT_IMAGE_MAX_SIDE)
        return BAD("ar target: %s: reference size %dx%d out of range", path, (int)w, (int)h);
    if (!(width_m > 0.0) || !isfinite(width_m))
        return BAD("ar target: %s: width %g m is not finite and > 0", path, width_m);
    if (scales < 1 || scales > 16 || (dim != 64 && dim != 128))
        return BAD("ar target: %s: %d scales / descriptor size %d out of range", path,
                   (int)scales, (int)dim);
    const size_t rec = record_bytes(dim);
    if (n < 1 || n > AR_MAX_FEATURES)
        return BAD("ar target: %s: %llu features (1 .. %llu allowed)", path,
                   (unsigned long long)n, (unsigned long long)AR_MAX_FEATURES);
    const uint64_t need = AR_HEADER_BYTES + n * rec + 8;
    uint64_t total = need;
    if (version == AR_VERSION) {
        /* the photometric part's size, from its level count and sample counts */
        const uint8_t *q = buf + need - 8;
        if (need + 4 > size) return BAD("ar target: %s: truncated photometric samples", path);
        const uint32_t levels = get_u32(q);
        if (levels > SATFEAT_AR_PHOTO_MAX_LEVELS)
            return BAD("ar target: %s: too many photometric levels (%u)", path, levels);
        if (need + 4 + 4 * (uint64_t)levels > size)
            return BAD("ar target: %s: truncated photometric samples", path);
        total += 4 + 4 * (uint64_t)levels;
        for (uint32_t k = 0; k < levels; k++) {
            const uint32_t c = get_u32(q + 4 + 4 * k);
            if (c > SATFEAT_AR_PHOTO_PER_LEVEL)
                return BAD("ar target: %s: a photometric level has too many samples (%u)", path,
                           c);
            total += 12 * (uint64_t)c;
        }
    }
    if (total != size)
        return BAD("ar target: %s: %s: the header declares %llu features and the file's counts "
                   "%llu bytes in all, the file has %zu bytes", path,
                   total > size ? "truncated" : "trailing bytes", (unsigned long long)n,
                   (unsigned long long)total, size);
    if (get_u64(buf + size - 8) != fnv1a(buf + 12, size - 20))
        return BAD("ar target: %s: checksum mismatch (the file is corrupt)", path);
    satfeat_ar_target *t = satfeat_ar_target_alloc((size_t)n, dim);
    if (!t) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar target: out of memory");
    t->width = w, t->height = h, t->width_m = width_m, t->scales = scales;
    for (size_t i = 0; i < (size_t)n; i++) {
        const char *why = parse_record(buf + AR_HEADER_BYTES + i * rec, t, i);
        if (why) {
            satfeat_ar_target_delete(t);
            return BAD("ar target: %s: feature %zu: %s", path, i, why);
        }
    }
    if (version == AR_VERSION) {
        const char *why = parse_photo(buf + need - 8, size - need, t);
        if (why) {
            satfeat_ar_target_delete(t);
            return why == ar_photo_oom
                       ? satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar target: out of memory")
                       : BAD("ar target: %s: %s", path, why);
        }
    }
    *out = t;
    return SATFEAT_OK;
#undef BAD
}

satfeat_status satfeat_ar_target_load(satfeat_ctx *ctx, const char *path, satfeat_ar_target **out)
{
    if (!out || !path) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "ar target load: NULL argument");
    *out = NULL;
    FILE *f;
    satfeat_status st = satfeat_file_open_input(ctx, "ar target", path, &f);
    if (st != SATFEAT_OK) return st;
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || sb.st_size < 0) {
        fclose(f);
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "ar target: %s: cannot stat", path);
    }
    const uint64_t size = (uint64_t)sb.st_size;
    if (size > SIZE_MAX / 2) {
        fclose(f);
        return satfeat_fail(ctx, SATFEAT_ERR_LIMIT, "ar target: %s: %llu bytes", path,
                            (unsigned long long)size);
    }
    st = satfeat_check_budget(ctx, "ar target file", (size_t)size);
    uint8_t *buf = st == SATFEAT_OK ? malloc(size ? (size_t)size : 1) : NULL;
    if (st == SATFEAT_OK && !buf) st = satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "ar target: out of memory");
    if (st == SATFEAT_OK && fread(buf, 1, (size_t)size, f) != (size_t)size)
        st = satfeat_fail(ctx, SATFEAT_ERR_IO, "ar target: %s: read failed", path);
    fclose(f);
    if (st == SATFEAT_OK) st = parse(ctx, path, buf, (size_t)size, out);
    free(buf);
    return st;
}

/* features.c - feature sets and match lists: arrays the library owns and grows, so callers
 * never guess a capacity (include/satfeat/features.h). */
#include "satfeat.h"
#include "src/features_internal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct satfeat_features {
    uint64_t stamp; /* satfeat_features_stamp: new at every change of the contents */
    satfeat_keypoint *kp;
    float *desc;
    size_t count;
    size_t kp_capacity;   /* keypoints the kp array holds */
    size_t desc_capacity; /* floats the desc array holds */
    satfeat_descriptor_kind kind;
    int width, height;
    int kept; /* satfeat_features_set_kept */
};

struct satfeat_matches {
    satfeat_match_pair *m;
    size_t count;
    size_t capacity;
};

satfeat_image_view satfeat_image_view_host(const uint8_t *pixels, int width, int height,
                                           size_t stride)
{
    satfeat_image_view v;
    memset(&v, 0, sizeof v);
    v.pixels = pixels;
    v.width = width;
    v.height = height;
    v.stride = stride ? stride : (width > 0 ? (size_t)width : 0);
    v.memory = SATFEAT_MEMORY_HOST;
    return v;
}

satfeat_image_view satfeat_image_view_device(const uint8_t *d_pixels, int width, int height,
                                             size_t stride, void *stream)
{
    satfeat_image_view v = satfeat_image_view_host(d_pixels, width, height, stride);
    v.memory = SATFEAT_MEMORY_DEVICE;
    v.stream = stream;
    return v;
}

/* Stamps are process-wide and never reused, so a stamp names one set's contents at one time
 * even across sets freed and made again at the same address. */
static atomic_uint_fast64_t next_stamp = 1;

/* Marks the set's contents as changed. */
static void touch(satfeat_features *f)
{
    f->stamp = (uint64_t)atomic_fetch_add_explicit(&next_stamp, 1, memory_order_relaxed);
}

uint64_t satfeat_features_stamp(const satfeat_features *f)
{
    return f ? f->stamp : 0;
}

void satfeat_features_set_kept(satfeat_features *f, int kept)
{
    if (f) f->kept = kept != 0;
}

int satfeat_features_kept(const satfeat_features *f)
{
    return f ? f->kept : 0;
}

satfeat_status satfeat_features_new(satfeat_features **out)
{
    if (!out) return SATFEAT_ERR_ARG;
    *out = calloc(1, sizeof **out);
    if (*out) touch(*out);
    return *out ? SATFEAT_OK : SATFEAT_ERR_ALLOC;
}

void satfeat_features_delete(satfeat_features *f)
{
    if (!f) return;
    free(f->kp);
    free(f->desc);
    free(f);
}

size_t satfeat_features_count(const satfeat_features *f) { return f ? f->count : 0; }

const satfeat_keypoint *satfeat_features_keypoints(const satfeat_features *f)
{
    return f && f->count ? f->kp : NULL;
}

const float *satfeat_features_descriptors(const satfeat_features *f)
{
    return f && f->count && f->kind != SATFEAT_DESCRIPTOR_NONE ? f->desc : NULL;
}

satfeat_descriptor_kind satfeat_features_descriptor_kind(const satfeat_features *f)
{
    return f ? f->kind : SATFEAT_DESCRIPTOR_NONE;
}

void satfeat_features_image_size(const satfeat_features *f, int *width, int *height)
{
    if (width) *width = f ? f->width : 0;
    if (height) *height = f ? f->height : 0;
}

static int valid_kind(satfeat_descriptor_kind kind)
{
    return kind == SATFEAT_DESCRIPTOR_NONE || kind == SATFEAT_DESCRIPTOR_SURF64 ||
           kind == SATFEAT_DESCRIPTOR_SURF128;
}

/* Grows the arrays to hold n features of `kind`; keeps the contents. */
static satfeat_status grow(satfeat_features *f, size_t n, satfeat_descriptor_kind kind)
{
    size_t dim = (size_t)kind;
    if (n > SIZE_MAX / sizeof(satfeat_keypoint) || (dim && n > SIZE_MAX / sizeof(float) / dim))
        return SATFEAT_ERR_OVERFLOW;
    if (n > f->kp_capacity) {
        satfeat_keypoint *kp = realloc(f->kp, n * sizeof *kp);
        if (!kp) return SATFEAT_ERR_ALLOC;
        f->kp = kp;
        f->kp_capacity = n;
    }
    if (n * dim > f->desc_capacity) {
        float *desc = realloc(f->desc, n * dim * sizeof *desc);
        if (!desc) return SATFEAT_ERR_ALLOC;
        f->desc = desc;
        f->desc_capacity = n * dim;
    }
    return SATFEAT_OK;
}

satfeat_status satfeat_features_reserve(satfeat_features *f, size_t n,
                                        satfeat_descriptor_kind kind)
{
    if (!f || !valid_kind(kind)) return SATFEAT_ERR_ARG;
    return grow(f, n, kind);
}

satfeat_status satfeat_features_prepare(satfeat_features *f, size_t n,
                                        satfeat_descriptor_kind kind, int width, int height,
                                        satfeat_keypoint **kp, float **desc)
{
    touch(f);
    f->count = 0;
    f->kind = kind;
    f->width = width;
    f->height = height;
    satfeat_status st = grow(f, n, kind);
    if (st != SATFEAT_OK) return st;
    f->count = n;
    if (kp) *kp = f->kp;
    if (desc) *desc = kind != SATFEAT_DESCRIPTOR_NONE ? f->desc : NULL;
    return SATFEAT_OK;
}

void satfeat_features_clear(satfeat_features *f)
{
    if (!f) return;
    touch(f);
    f->count = 0;
}

satfeat_status satfeat_features_assign(satfeat_features *f, const satfeat_keypoint *kp,
                                       const float *desc, size_t n,
                                       satfeat_descriptor_kind kind, int width, int height)
{
    if (!f) return SATFEAT_ERR_ARG;
    touch(f);
    f->count = 0;
    if ((n > 0 && !kp) || !valid_kind(kind) || (kind != SATFEAT_DESCRIPTOR_NONE && n > 0 && !desc) ||
        width < 1 || height < 1)
        return SATFEAT_ERR_ARG;
    satfeat_keypoint *dk;
    float *dd;
    satfeat_status st = satfeat_features_prepare(f, n, kind, width, height, &dk, &dd);
    if (st != SATFEAT_OK) return st;
    if (n) memcpy(dk, kp, n * sizeof *kp);
    if (n && dd) memcpy(dd, desc, n * (size_t)kind * sizeof *desc);
    return SATFEAT_OK;
}

satfeat_status satfeat_features_out(satfeat_features **features)
{
    if (!features) return SATFEAT_ERR_ARG;
    if (*features) {
        satfeat_features_clear(*features);
        return SATFEAT_OK;
    }
    return satfeat_features_new(features);
}

satfeat_status satfeat_matches_new(satfeat_matches **out)
{
    if (!out) return SATFEAT_ERR_ARG;
    *out = calloc(1, sizeof **out);
    return *out ? SATFEAT_OK : SATFEAT_ERR_ALLOC;
}

void satfeat_matches_delete(satfeat_matches *m)
{
    if (!m) return;
    free(m->m);
    free(m);
}

size_t satfeat_matches_count(const satfeat_matches *m) { return m ? m->count : 0; }

const satfeat_match_pair *satfeat_matches_data(const satfeat_matches *m)
{
    return m && m->count ? m->m : NULL;
}

satfeat_status satfeat_matches_prepare(satfeat_matches *m, size_t n, satfeat_match_pair **data)
{
    m->count = 0;
    if (n > m->capacity) {
        if (n > SIZE_MAX / sizeof(satfeat_match_pair)) return SATFEAT_ERR_OVERFLOW;
        satfeat_match_pair *p = realloc(m->m, n * sizeof *p);
        if (!p) return SATFEAT_ERR_ALLOC;
        m->m = p;
        m->capacity = n;
    }
    m->count = n;
    if (data) *data = m->m;
    return SATFEAT_OK;
}

satfeat_status satfeat_matches_assign(satfeat_matches *matches, const satfeat_match_pair *pairs,
                                      size_t n)
{
    if (!matches || (!pairs && n)) return SATFEAT_ERR_ARG;
    satfeat_match_pair *data = NULL;
    const satfeat_status st = satfeat_matches_prepare(matches, n, &data); /* empty on failure */
    if (st != SATFEAT_OK) return st;
    if (n) memcpy(data, pairs, n * sizeof *data);
    return SATFEAT_OK;
}

satfeat_status satfeat_matches_out(satfeat_matches **matches)
{
    if (!matches) return SATFEAT_ERR_ARG;
    if (*matches) {
        (*matches)->count = 0;
        return SATFEAT_OK;
    }
    return satfeat_matches_new(matches);
}

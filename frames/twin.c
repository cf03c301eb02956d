/* twin.c - a detector's twin (twin.h). */
#include "frames/twin.h"
#include "src/context_internal.h"

#include <stddef.h>

satfeat_status satfeat_fh_twin_new(satfeat_detector *det, int threads, const char *who,
                                   satfeat_fh_twin *out)
{
    satfeat_ctx *ctx = satfeat_detector_ctx(det);
    out->ctx = NULL;
    out->det = NULL;
    satfeat_status st = satfeat_ctx_new(&out->ctx, ctx->backend, ctx->device);
    if (st != SATFEAT_OK) /* satfeat_ctx_new left out->ctx NULL */
        return satfeat_fail(ctx, st, "%s: cannot create a context on device %d", who,
                            ctx->device);
    out->ctx->threads = threads;
    out->ctx->memory_limit = ctx->memory_limit;
    int w = 0, h = 0;
    satfeat_detector_created_size(det, &w, &h);
    st = satfeat_detector_new(out->ctx, satfeat_detector_params_of(det), w, h, &out->det);
    if (st != SATFEAT_OK) {
        st = satfeat_fh_twin_status(ctx, out, who, st);
        satfeat_fh_twin_free(out);
    }
    return st;
}

void satfeat_fh_twin_free(satfeat_fh_twin *t)
{
    satfeat_detector_delete(t->det);
    satfeat_ctx_delete(t->ctx);
    t->det = NULL;
    t->ctx = NULL;
}

satfeat_status satfeat_fh_twin_status(satfeat_ctx *ctx, const satfeat_fh_twin *t, const char *who,
                                      satfeat_status st)
{
    if (st == SATFEAT_OK) return st;
    return satfeat_fail(ctx, st, "%s: %s", who, satfeat_ctx_last_error(t->ctx));
}

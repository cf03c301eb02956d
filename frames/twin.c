/* twin.c - a detector's twin (twin.h). */
#include "frames/twin.h"

#include <stddef.h>

satfeat_status satfeat_fh_twin_new(satfeat_detector *det, int threads, const char *who,
                                   satfeat_fh_twin *out)
{
    satfeat_ctx *ctx = det->ctx;
    out->ctx = NULL;
    out->det = NULL;
    satfeat_status st = satfeat_ctx_new(&out->ctx, SATFEAT_BACKEND_CUDA, ctx->device);
    if (st != SATFEAT_OK) /* satfeat_ctx_new left out->ctx NULL */
        return satfeat_fail(ctx, st, "%s: cannot create a context on device %d", who,
                            ctx->device);
    out->ctx->threads = threads;
    out->ctx->memory_limit = ctx->memory_limit;
    st = satfeat_detector_new(out->ctx, &det->params, det->max_width, det->max_height, &out->det);
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

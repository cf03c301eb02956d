/* detection_set.c - a detection of the CLI as a feature set, for the commands that match and
 * evaluate (match, eval, draw --matches). */
#include "detect_options.h"

#include "commands.h"

int cli_detection_set(satfeat_ctx *ctx, const cli_detection *d, satfeat_features **out)
{
    satfeat_status st = *out ? SATFEAT_OK : satfeat_features_new(out);
    if (st == SATFEAT_OK)
        st = satfeat_features_assign(*out, d->kp, d->desc, d->n,
                                     (satfeat_descriptor_kind)d->dim, d->width, d->height);
    if (st != SATFEAT_OK) {
        cli_report("cannot hold the features", st, ctx);
        return 0;
    }
    return 1;
}

/* homography_io.c - reads a 3x3 homography written as nine numbers (Oxford data set format). */
#include "src/context_internal.h"
#include "src/file_input.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest homography file accepted (nine numbers with generous whitespace). */
#define HOMOGRAPHY_MAX_BYTES 4096

satfeat_status satfeat_homography_read(satfeat_ctx *ctx, const char *path, double h[9])
{
    if (!path || !h) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "homography: NULL argument");
    FILE *f;
    satfeat_status st = satfeat_file_open_input(ctx, "homography", path, &f);
    if (st != SATFEAT_OK) return st;
    char text[HOMOGRAPHY_MAX_BYTES + 1];
    const size_t got = fread(text, 1, HOMOGRAPHY_MAX_BYTES + 1, f);
    const int read_error = ferror(f);
    fclose(f);
    if (read_error) return satfeat_fail(ctx, SATFEAT_ERR_IO, "homography: cannot read '%s'", path);
    if (got > HOMOGRAPHY_MAX_BYTES)
        return satfeat_fail(ctx, SATFEAT_ERR_FORMAT, "homography: '%s' is too long", path);
    text[got] = '\0';
    if (strlen(text) != got)
        return satfeat_fail(ctx, SATFEAT_ERR_FORMAT, "homography: '%s' is not text", path);
    char *p = text;
    for (int k = 0; k < 9; k++) {
        char *end;
        errno = 0;
        const double v = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v))
            return satfeat_fail(ctx, SATFEAT_ERR_FORMAT,
                                "homography: '%s' needs nine numbers, entry %d is bad", path,
                                k + 1);
        h[k] = v;
        p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (*p)
        return satfeat_fail(ctx, SATFEAT_ERR_FORMAT,
                            "homography: '%s' has text after the nine numbers", path);
    return SATFEAT_OK;
}

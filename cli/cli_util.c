/* cli_util.c - argument parsing and error reporting shared by the subcommands. */
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_int(const char *text, int lo, int hi, const char *what, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = text ? strtol(text, &end, 10) : 0;
    if (!text || !*text || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "satfeat: %s must be an integer in [%d, %d], got '%s'\n", what, lo, hi,
                text ? text : "");
        return 0;
    }
    *out = (int)v;
    return 1;
}

int cli_parse_double(const char *text, double lo, double hi, const char *what, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = text ? strtod(text, &end) : 0;
    if (!text || !*text || *end || errno || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "satfeat: %s must be a number in [%g, %g], got '%s'\n", what, lo, hi,
                text ? text : "");
        return 0;
    }
    *out = v;
    return 1;
}

int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return 0;
    if (argv[*i][n] == '=') {
        *value = argv[*i] + n + 1;
        return 1;
    }
    if (argv[*i][n] != '\0') return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "satfeat: %s needs a value\n", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_parse_backend(const char *text, satfeat_backend *out)
{
    if (text && !strcmp(text, "auto")) *out = SATFEAT_BACKEND_AUTO;
    else if (text && !strcmp(text, "cpu")) *out = SATFEAT_BACKEND_CPU;
    else if (text && !strcmp(text, "cuda")) *out = SATFEAT_BACKEND_CUDA;
    else {
        fprintf(stderr, "satfeat: backend must be auto, cpu or cuda, got '%s'\n", text ? text : "");
        return 0;
    }
    return 1;
}

void cli_report(const char *what, satfeat_status st, const satfeat_ctx *ctx)
{
    const char *msg = ctx ? satfeat_ctx_last_error(ctx) : "";
    fprintf(stderr, "satfeat: %s: %s%s%s\n", what, satfeat_status_string(st), *msg ? ": " : "", msg);
}

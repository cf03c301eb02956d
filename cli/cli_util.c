/* cli_util.c - option matching, backend names and error reporting shared by the subcommands
 * (numbers: cli_number.c). */
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int cli_close_stdout(int rc)
{
    errno = 0;
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int err = errno;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        err = errno;
    }
    if (!failed) return rc;
    fprintf(stderr, "satfeat: cannot write to standard output%s%s\n", err ? ": " : "",
            err ? strerror(err) : "");
    return CLI_EXIT_FAILURE;
}

int cli_apply_memory_limit(satfeat_ctx *ctx, size_t bytes)
{
    if (bytes == 0) return 1;
    const satfeat_status st = satfeat_ctx_set_memory_limit(ctx, bytes);
    if (st != SATFEAT_OK) cli_report("cannot set the memory limit", st, ctx);
    return st == SATFEAT_OK;
}

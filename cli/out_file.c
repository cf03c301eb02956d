/* out_file.c - see out_file.h. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include "out_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_out_open(cli_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path) {
        o->f = stdout;
        return 1;
    }
    const size_t len = strlen(path) + 16;
    o->tmp_path = malloc(len);
    if (!o->tmp_path) {
        fprintf(stderr, "satfeat: out of memory\n");
        return 0;
    }
    snprintf(o->tmp_path, len, "%s.tmp.XXXXXX", path);
    const int fd = mkstemp(o->tmp_path);
    if (fd < 0) {
        fprintf(stderr, "satfeat: cannot create a temporary file for %s: %s\n", path,
                strerror(errno));
        free(o->tmp_path);
        o->tmp_path = NULL;
        return 0;
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        fprintf(stderr, "satfeat: cannot open %s: %s\n", o->tmp_path, strerror(errno));
        close(fd);
        remove(o->tmp_path);
        free(o->tmp_path);
        o->tmp_path = NULL;
        return 0;
    }
    o->path = path;
    return 1;
}

int cli_out_close(cli_out *o, int success)
{
    if (!o->f) return 0;
    if (o->f == stdout) {
        o->f = NULL; /* main() reports a failed stdout (cli_close_stdout) */
        return success && fflush(stdout) == 0 && !ferror(stdout);
    }
    int ok = success && !ferror(o->f);
    const int write_failed = success && !ok;
    if (fclose(o->f) != 0) ok = 0;
    o->f = NULL;
    if (success && !ok)
        fprintf(stderr, "satfeat: cannot write %s%s\n", o->path,
                write_failed ? "" : ": closing the file failed");
    if (ok && rename(o->tmp_path, o->path) != 0) {
        fprintf(stderr, "satfeat: cannot rename %s to %s: %s\n", o->tmp_path, o->path,
                strerror(errno));
        ok = 0;
    }
    if (!ok) remove(o->tmp_path);
    free(o->tmp_path);
    o->tmp_path = NULL;
    return ok;
}

/* file_replace.c - replace a file only by a complete new one (temporary file + rename). */
#define _XOPEN_SOURCE 700 /* open, lstat, realpath, getpid, fchmod */
#include "src/file_replace.h"
#include "src/errno_text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Attempts at a free temporary name before giving up (each is created with O_EXCL). */
#define REPLACE_NAME_TRIES 64

static satfeat_status fail_errno(satfeat_ctx *ctx, const char *path, const char *what, int err)
{
    char buf[SATFEAT_ERRNO_TEXT_MAX];
    return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: %s: %s", path, what,
                        satfeat_errno_text(err, buf, sizeof buf));
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

/* Creates "<target>.<pid>-<n>.tmp" exclusively; returns its descriptor (and name) or -1. */
static int create_temp(const char *target, char **name, int *err)
{
    const size_t len = strlen(target) + 48;
    char *tmp = malloc(len);
    if (!tmp) {
        *err = ENOMEM;
        return -1;
    }
    for (int n = 0; n < REPLACE_NAME_TRIES; n++) {
        snprintf(tmp, len, "%s.%ld-%d.tmp", target, (long)getpid(), n);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            *name = tmp;
            return fd;
        }
        *err = errno;
        if (*err != EEXIST) break;
    }
    free(tmp);
    return -1;
}

/* A path through /proc or /dev/fd names an open descriptor (/dev/stdout): never replace it. */
static int is_descriptor_path(const char *p)
{
    return !strncmp(p, "/proc/", 6) || !strncmp(p, "/dev/fd/", 8) || !strcmp(p, "/dev/stdout") ||
           !strcmp(p, "/dev/stderr");
}

satfeat_status satfeat_replace_open(satfeat_ctx *ctx, const char *path, satfeat_replace *out)
{
    memset(out, 0, sizeof *out);
    struct stat lst, st;
    int exists = lstat(path, &lst) == 0;
    if (!exists && errno != ENOENT) return fail_errno(ctx, path, "cannot open for writing", errno);
    if (exists && stat(path, &st) != 0) /* a dangling link is an error */
        return fail_errno(ctx, path, "cannot open for writing", errno);
    /* a device, a FIFO or a descriptor path: written in place, never truncated by a rename */
    const int in_place = exists && (!S_ISREG(st.st_mode) || is_descriptor_path(path));
    if (exists && S_ISLNK(lst.st_mode) && !in_place) {
        /* keep the link: replace the regular file it leads to */
        out->target = realpath(path, NULL);
        if (!out->target) return fail_errno(ctx, path, "cannot resolve the link", errno);
    } else {
        out->target = copy_string(path);
        if (!out->target) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "%s: out of memory", path);
    }
    int fd, err = 0;
    if (in_place) {
        fd = open(out->target, O_WRONLY | O_NOCTTY);
        err = errno;
    } else {
        fd = create_temp(out->target, &out->temp, &err);
        /* an existing file keeps its permission bits (a new one has 0666 less the umask) */
        if (fd >= 0 && exists) (void)fchmod(fd, st.st_mode & 07777);
    }
    if (fd >= 0) {
        out->file = fdopen(fd, "wb");
        if (!out->file) {
            err = errno;
            close(fd);
        }
    }
    if (!out->file) {
        if (out->temp) unlink(out->temp);
        free(out->temp);
        free(out->target);
        memset(out, 0, sizeof *out);
        return fail_errno(ctx, path, "cannot open for writing", err);
    }
    return SATFEAT_OK;
}

satfeat_status satfeat_replace_close(satfeat_ctx *ctx, const char *path, satfeat_replace *w,
                                     int ok, const char *what, const char *reason)
{
    int err = ok ? 0 : errno;
    if (ferror(w->file) && ok) {
        ok = 0;
        err = errno;
    }
    if (fclose(w->file) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    w->file = NULL;
    if (ok && w->temp && rename(w->temp, w->target) != 0) {
        ok = 0;
        err = errno;
        reason = NULL;
    }
    if (!ok && w->temp) unlink(w->temp); /* the target itself is never removed */
    free(w->temp);
    free(w->target);
    w->temp = w->target = NULL;
    if (ok) return SATFEAT_OK;
    char buf[SATFEAT_ERRNO_TEXT_MAX];
    return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: %s failed: %s", path, what,
                        reason ? reason : satfeat_errno_text(err, buf, sizeof buf));
}

/* file_input.c - see file_input.h. */
#define _XOPEN_SOURCE 700 /* open flags, fstat, fcntl */
#include "src/file_input.h"
#include "src/errno_text.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

const char *satfeat_file_kind(unsigned mode)
{
    if (S_ISREG(mode)) return "regular file";
    if (S_ISDIR(mode)) return "directory";
    if (S_ISFIFO(mode)) return "FIFO";
    if (S_ISCHR(mode)) return "character device";
    if (S_ISBLK(mode)) return "block device";
    if (S_ISSOCK(mode)) return "socket";
    return "special file";
}

satfeat_status satfeat_file_open_input(satfeat_ctx *ctx, const char *what, const char *path,
                                       FILE **out)
{
    char ebuf[SATFEAT_ERRNO_TEXT_MAX];
    if (!out) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "file open: NULL out");
    *out = NULL;
    if (!what || !path) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "file open: NULL argument");
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: %s: cannot open for reading: %s", what,
                            path, satfeat_errno_text(errno, ebuf, sizeof ebuf));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        const int e = errno;
        close(fd);
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: %s: cannot stat: %s", what, path,
                            satfeat_errno_text(e, ebuf, sizeof ebuf));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: %s: is a %s, not a regular file", what,
                            path, satfeat_file_kind((unsigned)st.st_mode));
    }
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        const int e = errno;
        close(fd);
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: %s: cannot read: %s", what, path,
                            satfeat_errno_text(e, ebuf, sizeof ebuf));
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        const int e = errno;
        close(fd);
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: %s: cannot read: %s", what, path,
                            satfeat_errno_text(e, ebuf, sizeof ebuf));
    }
    *out = f;
    return SATFEAT_OK;
}

satfeat_status satfeat_file_check_input(satfeat_ctx *ctx, const char *what, const char *path)
{
    char ebuf[SATFEAT_ERRNO_TEXT_MAX];
    if (!what || !path) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "file check: NULL argument");
    struct stat st;
    if (stat(path, &st) != 0)
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: %s: %s", what, path,
                            satfeat_errno_text(errno, ebuf, sizeof ebuf));
    if (!S_ISREG(st.st_mode))
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "%s: %s: is a %s, not a regular file", what,
                            path, satfeat_file_kind((unsigned)st.st_mode));
    return SATFEAT_OK;
}

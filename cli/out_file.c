/* out_file.c - see out_file.h. */
#define _XOPEN_SOURCE 700 /* realpath, fchmod, fdopen */
#include "out_file.h"
#include "out_cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Attempts at a free temporary name (each created with O_EXCL), as the library. */
#define OUT_NAME_TRIES 64

/* Where a path leads: the file to write and what it is now. */
typedef struct out_target {
    char *path;    /* malloc'd: the path itself, or a link's resolved final target */
    int exists;    /* the final object exists */
    int in_place;  /* written in place: not a regular file, or reached through /proc */
    mode_t mode;   /* the final object's mode when it exists */
} out_target;

static char *copy_string(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

/* A path through /proc or /dev/fd names an open descriptor (/dev/stdout): never replace it. */
static int is_descriptor_path(const char *p)
{
    return !strncmp(p, "/proc/", 6) || !strncmp(p, "/dev/fd/", 8) || !strcmp(p, "/dev/stdout") ||
           !strcmp(p, "/dev/stderr");
}

/* The descriptor a path names (/dev/stdout 1, /dev/stderr 2, /dev/fd/N, /proc/self/fd/N), or
 * -1. Writing to a dup of it keeps the caller's open file (offset, O_APPEND of `>>`), where
 * opening the path again would start a new one at offset 0. */
static int descriptor_of(const char *p)
{
    if (!strcmp(p, "/dev/stdout")) return 1;
    if (!strcmp(p, "/dev/stderr")) return 2;
    const char *n = !strncmp(p, "/dev/fd/", 8) ? p + 8 : !strncmp(p, "/proc/self/fd/", 14) ? p + 14 : NULL;
    if (!n || *n < '0' || *n > '9') return -1;
    long v = 0;
    for (; *n >= '0' && *n <= '9' && v < 1000000; n++) v = v * 10 + (*n - '0');
    return *n == '\0' && v < 1000000 ? (int)v : -1;
}

/* Resolves `path`; prints "cannot write PATH: why" and returns 0 on failure. */
static int out_resolve(const char *path, out_target *t)
{
    memset(t, 0, sizeof *t);
    struct stat lst, st;
    if (lstat(path, &lst) != 0) {
        if (errno != ENOENT) goto fail;
        t->path = copy_string(path); /* a new file */
        if (!t->path) goto fail;
        return 1;
    }
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) {
            fprintf(stderr, "satfeat: cannot write %s: the symbolic link leads nowhere\n", path);
            return 0;
        }
        goto fail;
    }
    t->exists = 1;
    t->mode = st.st_mode;
    t->in_place = !S_ISREG(st.st_mode) || is_descriptor_path(path);
    if (S_ISLNK(lst.st_mode) && !t->in_place) {
        t->path = realpath(path, NULL); /* keep the link: replace the file it leads to */
        if (t->path && is_descriptor_path(t->path)) t->in_place = 1;
        if (t->in_place) {
            free(t->path);
            t->path = NULL;
        }
    }
    if (!t->path) t->path = copy_string(path);
    if (!t->path) goto fail;
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "satfeat: cannot write %s: it is a directory\n", path);
        free(t->path);
        t->path = NULL;
        return 0;
    }
    return 1;
fail:
    fprintf(stderr, "satfeat: cannot write %s: %s\n", path, strerror(errno));
    free(t->path);
    t->path = NULL;
    return 0;
}

/* The directory holding `file` ("." for a bare name), malloc'd. */
static char *parent_dir(const char *file)
{
    const char *slash = strrchr(file, '/');
    if (!slash) return copy_string(".");
    const size_t len = slash == file ? 1 : (size_t)(slash - file);
    char *d = malloc(len + 1);
    if (d) {
        memcpy(d, file, len);
        d[len] = '\0';
    }
    return d;
}

int cli_out_check(const char *path)
{
    out_target t;
    if (!out_resolve(path, &t)) return 0;
    int ok = 1;
    if (t.in_place) {
        if (access(t.path, W_OK) != 0) {
            fprintf(stderr, "satfeat: cannot write %s: %s\n", path, strerror(errno));
            ok = 0;
        }
    } else {
        char *dir = parent_dir(t.path);
        struct stat st;
        if (!dir) {
            fprintf(stderr, "satfeat: out of memory\n");
            ok = 0;
        } else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "satfeat: cannot write %s: the directory %s does not exist\n", path,
                    dir);
            ok = 0;
        } else if (access(dir, W_OK | X_OK) != 0) {
            fprintf(stderr, "satfeat: cannot write %s: the directory %s: %s\n", path, dir,
                    strerror(errno));
            ok = 0;
        }
        free(dir);
    }
    free(t.path);
    return ok;
}

int cli_out_dir_ready(const char *dir, const char *what, int create)
{
    struct stat st;
    if (create && mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "satfeat: %s: cannot create the directory %s: %s\n", what, dir,
                strerror(errno));
        return 0;
    }
    if (stat(dir, &st) != 0) {
        fprintf(stderr, "satfeat: %s: %s: %s\n", what, dir, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "satfeat: %s: %s is not a directory\n", what, dir);
        return 0;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "satfeat: %s: cannot write into %s: %s\n", what, dir, strerror(errno));
        return 0;
    }
    return 1;
}

/* Creates "<target>.<pid>-<n>.tmp" exclusively with mode 0666 (less the umask); -1 on error. */
static int create_temp(const char *target, char **name)
{
    const size_t len = strlen(target) + 48;
    char *tmp = malloc(len);
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    for (int n = 0; n < OUT_NAME_TRIES; n++) {
        snprintf(tmp, len, "%s.%ld-%d.tmp", target, (long)getpid(), n);
        const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *name = tmp;
            return fd;
        }
        if (errno != EEXIST) break;
    }
    const int e = errno;
    free(tmp);
    errno = e;
    return -1;
}

int cli_out_open(cli_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->cleanup_slot = -1;
    if (!path) {
        o->f = stdout;
        return 1;
    }
    out_target t;
    if (!out_resolve(path, &t)) return 0;
    int fd;
    const int named_fd = t.in_place ? descriptor_of(path) : -1;
    if (named_fd == 1) fflush(stdout); /* what the command printed before comes first */
    if (named_fd >= 0) {
        fd = dup(named_fd);
    } else if (t.in_place) {
        fd = open(t.path, O_WRONLY | O_NOCTTY | O_CLOEXEC); /* no O_TRUNC: a device stays as is */
    } else {
        fd = create_temp(t.path, &o->tmp_path);
        /* an existing file keeps its permission bits; fchmod of our own new file only fails on
         * exotic file systems, where the umask's mode is the fallback */
        if (fd >= 0 && t.exists) (void)fchmod(fd, t.mode & 07777);
        if (fd >= 0) o->cleanup_slot = cli_cleanup_add(o->tmp_path);
    }
    if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
        const int e = errno;
        close(fd);
        fd = -1;
        errno = e;
    }
    if (fd < 0) {
        fprintf(stderr, "satfeat: cannot write %s: %s\n", path, strerror(errno));
        if (o->tmp_path) unlink(o->tmp_path);
        cli_cleanup_remove(o->cleanup_slot);
        free(o->tmp_path);
        free(t.path);
        memset(o, 0, sizeof *o);
        o->cleanup_slot = -1;
        return 0;
    }
    o->path = path;
    o->target = t.path;
    return 1;
}

int cli_out_close(cli_out *o, int success)
{
    if (!o->f) return 0;
    if (o->f == stdout) {
        o->f = NULL; /* main() reports a failed stdout (cli_close_stdout) */
        return success && fflush(stdout) == 0 && !ferror(stdout);
    }
    int ok = success, err = 0;
    if (ok && (fflush(o->f) != 0 || ferror(o->f))) {
        ok = 0;
        err = errno;
    }
    if (fclose(o->f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    o->f = NULL;
    if (ok && o->tmp_path && rename(o->tmp_path, o->target) != 0) {
        ok = 0;
        err = errno;
    }
    if (!ok && o->tmp_path) unlink(o->tmp_path); /* the target itself is never removed */
    cli_cleanup_remove(o->cleanup_slot);
    if (success && !ok)
        fprintf(stderr, "satfeat: cannot write %s: %s\n", o->path,
                err ? strerror(err) : "write error");
    free(o->tmp_path);
    free(o->target);
    o->tmp_path = o->target = NULL;
    o->cleanup_slot = -1;
    return ok;
}

int cli_out_guard_begin(const char *path)
{
    /* the library's temporary file sits beside the regular file the path leads to; a device, a
     * FIFO, /dev/stdout or a dangling link gets none (the library's write reports the latter) */
    struct stat lst, st;
    char *target = NULL;
    if (lstat(path, &lst) != 0) {
        if (errno == ENOENT) target = copy_string(path);
    } else if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && !is_descriptor_path(path)) {
        target = S_ISLNK(lst.st_mode) ? realpath(path, NULL) : copy_string(path);
    }
    if (!target) return -1;
    int slot = -1;
    const size_t len = strlen(target) + 48;
    char *name = malloc(len);
    if (name) {
        snprintf(name, len, "%s.%ld-0.tmp", target, (long)getpid());
        /* only a free name: one that exists now is not ours to remove */
        if (lstat(name, &st) != 0 && errno == ENOENT) slot = cli_cleanup_add(name);
    }
    free(name);
    free(target);
    return slot;
}

void cli_out_guard_end(int slot)
{
    cli_cleanup_remove(slot);
}

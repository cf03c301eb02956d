/* frame_list.c - the frame list of `satfeat detect` and `satfeat track`: arguments, a
 * directory's images in natural name order, or a list file of paths. */
#define _POSIX_C_SOURCE 200809L /* opendir, stat */
#include "frame_list.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_natural_compare(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            const char *za = a, *zb = b;
            while (*a == '0') a++;
            while (*b == '0') b++;
            const char *sa = a, *sb = b; /* significant digits start here */
            while (isdigit((unsigned char)*a)) a++;
            while (isdigit((unsigned char)*b)) b++;
            const size_t la = (size_t)(a - sa), lb = (size_t)(b - sb);
            if (la != lb) return la < lb ? -1 : 1;
            const int c = strncmp(sa, sb, la);
            if (c != 0) return c;
            const size_t ra = (size_t)(a - za), rb = (size_t)(b - zb); /* "02" after "2" */
            if (ra != rb) return ra < rb ? -1 : 1;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

void cli_frame_list_free(cli_frame_list *list)
{
    for (size_t i = 0; i < list->n; i++) free(list->paths[i]);
    free(list->paths);
    memset(list, 0, sizeof *list);
}

/* Appends prefix + name (name alone when prefix is NULL or name is absolute); 0 out of memory. */
static int list_add(cli_frame_list *list, const char *prefix, const char *name)
{
    if (list->n == list->cap) {
        const size_t cap = list->cap ? 2 * list->cap : 64;
        char **p = realloc(list->paths, cap * sizeof *p);
        if (!p) return 0;
        list->paths = p;
        list->cap = cap;
    }
    if (!prefix || name[0] == '/') prefix = "";
    const size_t len = strlen(prefix) + strlen(name) + 1;
    char *s = malloc(len);
    if (!s) return 0;
    snprintf(s, len, "%s%s", prefix, name);
    list->paths[list->n++] = s;
    return 1;
}

/* The directory part of a path with its trailing '/' ("a/b.txt" -> "a/", "b.txt" -> ""), malloc'd. */
static char *dir_prefix(const char *path)
{
    const char *slash = strrchr(path, '/');
    const size_t len = slash ? (size_t)(slash - path) + 1 : 0;
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, path, len);
        s[len] = '\0';
    }
    return s;
}

/* 1 when `name` ends in `suffix`, ignoring case. */
static int ends_with(const char *name, const char *suffix)
{
    const size_t n = strlen(name), s = strlen(suffix);
    if (n < s) return 0;
    for (size_t i = 0; i < s; i++)
        if (tolower((unsigned char)name[n - s + i]) != tolower((unsigned char)suffix[i])) return 0;
    return 1;
}

static int compare_paths(const void *a, const void *b)
{
    return cli_natural_compare(*(const char *const *)a, *(const char *const *)b);
}

/* Suffixes of the files a directory gives (any case); other files in it are skipped silently,
 * since folders of frames often hold notes, ground truth or results beside the images. */
static const char *const image_suffixes[] = {".png", ".pgm", ".ppm", ".pnm", ".jpg", ".jpeg"};

/* 1 when `name` ends in one of image_suffixes. */
static int is_image_name(const char *name)
{
    for (size_t i = 0; i < sizeof image_suffixes / sizeof image_suffixes[0]; i++)
        if (ends_with(name, image_suffixes[i])) return 1;
    return 0;
}

/* The image files of a directory in natural name order. */
static int list_directory(cli_frame_list *list, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "satfeat: cannot open the directory %s: %s\n", dir, strerror(errno));
        return 0;
    }
    struct dirent *e;
    int ok = 1;
    while (ok && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (!is_image_name(e->d_name)) continue;
        ok = list_add(list, NULL, e->d_name); /* names first, so they sort without the dir */
    }
    closedir(d);
    if (!ok) {
        fprintf(stderr, "satfeat: out of memory\n");
        return 0;
    }
    if (list->n == 0) {
        fprintf(stderr, "satfeat: no image files (.png .jpg .jpeg .pgm .ppm .pnm) in %s\n", dir);
        return 0;
    }
    qsort(list->paths, list->n, sizeof *list->paths, compare_paths);
    const int has_slash = dir[strlen(dir) - 1] == '/';
    for (size_t i = 0; i < list->n; i++) {
        const size_t len = strlen(dir) + strlen(list->paths[i]) + 2;
        char *s = malloc(len);
        if (!s) {
            fprintf(stderr, "satfeat: out of memory\n");
            return 0;
        }
        snprintf(s, len, "%s%s%s", dir, has_slash ? "" : "/", list->paths[i]);
        free(list->paths[i]);
        list->paths[i] = s;
    }
    return 1;
}

/* The paths of a list file, relative ones resolved against the file's directory. */
static int list_file(cli_frame_list *list, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "satfeat: cannot open the frame list %s: %s\n", path, strerror(errno));
        return 0;
    }
    char *dir = dir_prefix(path);
    char line[4096];
    int ok = dir != NULL, lineno = 0;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            fprintf(stderr, "satfeat: %s:%d: line too long\n", path, lineno);
            ok = -1;
            break;
        }
        while (len > 0 && isspace((unsigned char)line[len - 1])) line[--len] = '\0';
        const char *s = line;
        while (isspace((unsigned char)*s)) s++;
        if (*s == '\0' || *s == '#') continue;
        ok = list_add(list, dir, s);
    }
    const int read_error = ferror(f);
    fclose(f);
    free(dir);
    if (ok < 0) return 0;
    if (!ok) {
        fprintf(stderr, "satfeat: out of memory\n");
        return 0;
    }
    if (read_error) {
        fprintf(stderr, "satfeat: cannot read the frame list %s\n", path);
        return 0;
    }
    if (list->n == 0) {
        fprintf(stderr, "satfeat: the frame list %s names no frame\n", path);
        return 0;
    }
    return 1;
}

int cli_frame_list_build(cli_frame_list *list, const char *const *args, int nargs)
{
    memset(list, 0, sizeof *list);
    struct stat st;
    int ok;
    if (nargs == 1 && stat(args[0], &st) == 0 && S_ISDIR(st.st_mode)) {
        ok = list_directory(list, args[0]);
    } else if (nargs == 1 && ends_with(args[0], ".txt")) {
        ok = list_file(list, args[0]);
    } else {
        ok = 1;
        for (int i = 0; ok && i < nargs; i++) ok = list_add(list, NULL, args[i]);
        if (!ok) fprintf(stderr, "satfeat: out of memory\n");
    }
    if (!ok) cli_frame_list_free(list);
    return ok;
}

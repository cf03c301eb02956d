/* replay_main.c - runs a libFuzzer harness without libFuzzer: every file of the directories
 * given (the seed corpus and the regression files of past findings) goes through
 * LLVMFuzzerTestOneInput once, so ctest replays them in every build (and under ASan/UBSan). */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs one file; returns 0, or 1 when it cannot be read. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    const int bad = ferror(f) || !buf;
    fclose(f);
    if (!bad) LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return bad;
}

int main(int argc, char **argv)
{
    int files = 0, errors = 0;
    for (int a = 1; a < argc; a++) {
        DIR *d = opendir(argv[a]);
        if (!d) {
            fprintf(stderr, "replay: cannot open the directory %s\n", argv[a]);
            return 1;
        }
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
            errors += replay_file(path);
            files++;
        }
        closedir(d);
    }
    printf("replay: %d file(s) run, %d unreadable\n", files, errors);
    return files == 0 || errors ? 1 : 0;
}

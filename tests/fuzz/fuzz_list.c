/* fuzz_list.c - libFuzzer harness of the CLI's list-file parser (cli/frame_list.c, compiled in):
 * every line through cli_list_line with a roomy and a tiny buffer, checking what it promises,
 * then the whole input as a LIST.txt through cli_frame_list_build. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "frame_list.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts (a finding) unless a parsed name keeps the parser's promises. */
static void check_line(const char *line, size_t len, size_t cap)
{
    char *out = malloc(cap);
    if (!out) return;
    const char *why = NULL;
    const int r = cli_list_line(line, len, out, cap, &why);
    if (r < -1 || r > 1) abort();
    if (r < 0 && !why) abort();
    if (r > 0) {
        const size_t n = strnlen(out, cap);
        if (n == 0 || n >= cap) abort(); /* a name, NUL-terminated inside the buffer */
        /* an unquoted name is the trimmed line itself: no blank at either end */
        if (memchr(line, '"', len) == NULL && (out[0] == ' ' || out[n - 1] == ' ')) abort();
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    size_t start = 0;
    for (size_t k = 0; k <= size; k++) {
        if (k < size && s[k] != '\n') continue;
        check_line(s + start, k - start, 4096);
        check_line(s + start, k - start, 4);
        start = k + 1;
    }
    char path[1024];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/satfeat_list_%ld.txt", dir && *dir ? dir : "/tmp",
             (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    const int ok = (size == 0 || fwrite(data, 1, size, f) == size) && fclose(f) == 0;
    if (!ok) return 0;
    const char *args[1] = {path};
    cli_frame_list list;
    if (cli_frame_list_build(&list, args, 1)) {
        if (list.n == 0) abort();
        for (size_t k = 0; k < list.n; k++)
            if (!list.paths[k] || !list.paths[k][0]) abort();
        cli_frame_list_free(&list);
    }
    return 0;
}

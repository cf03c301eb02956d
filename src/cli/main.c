/* main.c - the satfeat command-line tool: --help, --version and subcommand dispatch. */
#include "satfeat.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: satfeat [--help] [--version] COMMAND [ARGS]\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("satfeat %s (CUDA backend: %s)\n", satfeat_version_string(),
               satfeat_has_cuda_build() ? "built" : "not built");
        return 0;
    }
    fprintf(stderr, "satfeat: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

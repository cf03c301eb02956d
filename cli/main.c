/* main.c - the satfeat command-line tool: --help, --version and subcommand dispatch. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

typedef struct cli_entry {
    const char *name;
    cli_command_fn fn;
    const char *summary;
} cli_entry;

/* One line per subcommand; each lives in its own cmd_*.c file. */
static const cli_entry commands[] = {
    {"sat", cli_cmd_sat, "compute an image's summed area table; print checksum and time"},
    {"detect", cli_cmd_detect, "keypoints of an image or a sequence: text, csv, json, oxford"},
    {"draw", cli_cmd_draw, "keypoints, or two images' matches, drawn into a PNG"},
    {"match", cli_cmd_match, "descriptor matches of two images; evaluated with -H"},
    {"eval", cli_cmd_eval, "repeatability and matching score on an image pair and homography"},
    {"track", cli_cmd_track, "feature tracks over a frame sequence, one line per track and frame"},
    {"ar", cli_cmd_ar, "known planar targets in every frame and the camera's pose (AR)"},
    {"bench", cli_cmd_bench, "GPU timings: bench sat (vs copy floor, NPP), bench detect, bench batch"},
    {NULL, NULL, NULL},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: satfeat [--help] [--version] COMMAND [ARGS]\n\ncommands:\n");
    for (const cli_entry *c = commands; c->name; c++) fprintf(out, "  %-12s %s\n", c->name, c->summary);
    fprintf(out, "\nRun 'satfeat COMMAND --help' for a command's options.\n");
}

/* Runs the command line; main() then checks what went to stdout. */
static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        cli_print_version(stdout);
        return CLI_EXIT_OK;
    }
    for (const cli_entry *c = commands; c->name; c++)
        if (!strcmp(argv[1], c->name)) return c->fn(argc - 1, argv + 1);
    const char *names[sizeof commands / sizeof commands[0] + 2] = {"--help", "--version"};
    size_t n = 2;
    for (const cli_entry *c = commands; c->name; c++) names[n++] = c->name;
    const char *near = cli_nearest_name(argv[1], names, n);
    fprintf(stderr, "satfeat: unknown command '%s'", argv[1]);
    if (near) fprintf(stderr, "; did you mean %s?", near);
    fputc('\n', stderr);
    usage(stderr);
    return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    return cli_close_stdout(run(argc, argv));
}

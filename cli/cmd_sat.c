/* cmd_sat.c - `satfeat sat`: loads an image as 8-bit gray, computes its summed area table and
 * prints the table's size, a checksum, its bottom-right entry and the median time per call. */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sat_help(FILE *out)
{
    fprintf(out,
            "usage: satfeat sat IMAGE [--backend auto|cpu|cuda] [--algo auto|cpu|2r1w|skss]\n"
            "                         [--threads N] [--type u8|f32] [--repeat N]\n"
            "                         [--memory-limit N] [--help]\n"
            "\n"
            "Loads IMAGE (PNG, JPEG, PGM or PPM) as 8-bit gray, computes its (w+1) x (h+1)\n"
            "summed area table and prints the table size, backend, algorithm, checksum,\n"
            "bottom-right entry (the sum of all pixels) and the median wall-clock time of one\n"
            "call.\n"
            "\n"
            "  --backend B   where the work runs (default auto: CUDA when usable, else CPU)\n"
            "  --algo A      cpu, 2r1w or skss (the last two need CUDA); default auto\n"
            "  --threads N   CPU threads, 0 = the OpenMP default (default 0); at most 4 per online core\n"
            "  --type T      u8: u8 -> u32 table (default); f32: the gray values as float,\n"
            "                f32 -> f32 table\n"
            "  --repeat N    timed calls after one untimed warm-up call (default 10)\n"
            "  --memory-limit N  host memory the image read may ask for, in bytes with an\n"
            "                optional K, M, G or T suffix (powers of 1024); a larger image is\n"
            "                refused (default: half the physical memory)\n"
            "\n"
            "checksum: 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3) over\n"
            "the table entries in row-major order, row 0 and column 0 included, each entry fed\n"
            "as its 4 bytes in little-endian order (the u32 value, or the f32 IEEE-754 bits).\n"
            "time: one call of satfeat_sat_u8/f32 on host memory (on CUDA this includes the\n"
            "copies to and from the device).\n"
            "\nexample:\n"
            "  satfeat sat data/scene.png --backend cpu --repeat 20\n"
            "\nExit status: 0 ok, 1 the work failed, 2 bad command line.\n");
}

typedef struct sat_options {
    const char *image;
    satfeat_backend backend;
    satfeat_sat_algo algo;
    int threads;
    int use_f32;
    int repeat;
    size_t memory_limit; /* --memory-limit, 0 = the library's default */
} sat_options;

static int parse_algo(const char *text, satfeat_sat_algo *out)
{
    static const struct {
        const char *name;
        satfeat_sat_algo algo;
    } names[] = {{"auto", SATFEAT_SAT_AUTO}, {"cpu", SATFEAT_SAT_CPU},
                 {"2r1w", SATFEAT_SAT_2R1W}, {"skss", SATFEAT_SAT_SKSS_LB}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(text, names[i].name)) {
            *out = names[i].algo;
            return 1;
        }
    fprintf(stderr, "satfeat: algo must be auto, cpu, 2r1w or skss, got '%s'\n", text);
    return 0;
}

static const char *algo_name(satfeat_sat_algo algo)
{
    switch (algo) {
    case SATFEAT_SAT_CPU: return "cpu";
    case SATFEAT_SAT_2R1W: return "2r1w";
    case SATFEAT_SAT_SKSS_LB: return "skss";
    default: return "auto";
    }
}

/* Parses the command line; returns -1 to go on, else the exit code. */
static int parse_sat_args(int argc, char **argv, sat_options *o)
{
    *o = (sat_options){NULL, SATFEAT_BACKEND_AUTO, SATFEAT_SAT_AUTO, 0, 0, 10, 0};
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            sat_help(stdout);
            return CLI_EXIT_OK;
        }
        if ((m = cli_option_value(argc, argv, &i, "--backend", &v)) != 0) {
            if (m < 0 || !cli_parse_backend(v, &o->backend)) return CLI_EXIT_USAGE;
        } else if ((m = cli_option_value(argc, argv, &i, "--algo", &v)) != 0) {
            if (m < 0 || !parse_algo(v, &o->algo)) return CLI_EXIT_USAGE;
        } else if ((m = cli_option_value(argc, argv, &i, "--memory-limit", &v)) != 0) {
            if (m < 0 || !cli_parse_memory_limit(v, &o->memory_limit)) return CLI_EXIT_USAGE;
        } else if ((m = cli_option_value(argc, argv, &i, "--threads", &v)) != 0) {
            if (m < 0 || !cli_parse_threads(v, &o->threads))
                return CLI_EXIT_USAGE;
        } else if ((m = cli_option_value(argc, argv, &i, "--repeat", &v)) != 0) {
            if (m < 0 || !cli_parse_int(v, 1, 1000000, "--repeat", &o->repeat))
                return CLI_EXIT_USAGE;
        } else if ((m = cli_option_value(argc, argv, &i, "--type", &v)) != 0) {
            if (m < 0) return CLI_EXIT_USAGE;
            if (strcmp(v, "u8") && strcmp(v, "f32")) {
                fprintf(stderr, "satfeat: type must be u8 or f32, got '%s'\n", v);
                return CLI_EXIT_USAGE;
            }
            o->use_f32 = !strcmp(v, "f32");
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_unknown_option("sat: ", argv[i], sat_help);
            return CLI_EXIT_USAGE;
        } else if (o->image) {
            fprintf(stderr, "satfeat: sat: more than one image given ('%s')\n", argv[i]);
            return CLI_EXIT_USAGE;
        } else {
            o->image = argv[i];
        }
    }
    if (!o->image) {
        fprintf(stderr, "satfeat: sat: no image given\n");
        return CLI_EXIT_USAGE;
    }
    return -1;
}

/* 64-bit FNV-1a over 32-bit words, each fed as 4 little-endian bytes. */
static uint64_t fnv1a_words(const uint32_t *words, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 4; b++) {
            h ^= (words[i] >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ull;
        }
    return h;
}

/* Runs the table computation once; `table` is (w+1) x (h+1) 32-bit words, tightly packed. */
static satfeat_status run_once(satfeat_ctx *ctx, const sat_options *o, const uint8_t *gray,
                               const float *grayf, int w, int h, void *table)
{
    size_t tstride = ((size_t)w + 1) * 4;
    if (o->use_f32)
        return satfeat_sat_f32(ctx, grayf, (size_t)w * 4, w, h, table, tstride, o->algo);
    return satfeat_sat_u8(ctx, gray, (size_t)w, w, h, table, tstride, o->algo);
}

/* Computes the table o->repeat + 1 times and prints the report; returns the exit code. */
static int run_sat(satfeat_ctx *ctx, const sat_options *o, const uint8_t *gray, int w, int h)
{
    const size_t entries = ((size_t)w + 1) * ((size_t)h + 1);
    uint32_t *table = malloc(entries * 4);
    float *grayf = o->use_f32 ? malloc((size_t)w * (size_t)h * sizeof(float)) : NULL;
    double *times = malloc((size_t)o->repeat * sizeof(double));
    int code = CLI_EXIT_FAILURE;
    if (!table || !times || (o->use_f32 && !grayf)) {
        fprintf(stderr, "satfeat: sat: out of memory for a %dx%d table\n", w, h);
        goto done;
    }
    if (grayf)
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++) grayf[i] = (float)gray[i];
    satfeat_status st = run_once(ctx, o, gray, grayf, w, h, table); /* warm-up */
    for (int r = 0; st == SATFEAT_OK && r < o->repeat; r++) {
        double t0 = cli_now_ms();
        st = run_once(ctx, o, gray, grayf, w, h, table);
        times[r] = cli_now_ms() - t0;
    }
    if (st != SATFEAT_OK) {
        cli_report("sat", st, ctx);
        goto done;
    }
    const double median = cli_median(times, o->repeat);
    const int cuda = satfeat_ctx_backend(ctx) == SATFEAT_BACKEND_CUDA;
    printf("image        %s (%dx%d)\n", o->image, w, h);
    if (cuda) printf("backend      cuda (device %d)\n", satfeat_ctx_device(ctx));
    else printf("backend      cpu (%d thread%s)\n", satfeat_ctx_threads(ctx),
                satfeat_ctx_threads(ctx) == 1 ? "" : "s");
    printf("algorithm    %s%s\n", algo_name(o->algo),
           o->algo == SATFEAT_SAT_AUTO && !cuda ? " (cpu)" : "");
    printf("type         %s\n", o->use_f32 ? "f32 -> f32" : "u8 -> u32");
    printf("table        %dx%d entries\n", w + 1, h + 1);
    printf("checksum     fnv1a64:%016llx\n", (unsigned long long)fnv1a_words(table, entries));
    if (o->use_f32) printf("bottom-right %.9g\n", (double)((const float *)table)[entries - 1]);
    else printf("bottom-right %lu\n", (unsigned long)table[entries - 1]);
    printf("time         %.4f ms median of %d calls (min %.4f, max %.4f)\n", median, o->repeat,
           times[0], times[o->repeat - 1]);
    code = CLI_EXIT_OK;
done:
    free(table);
    free(grayf);
    free(times);
    return code;
}

int cli_cmd_sat(int argc, char **argv)
{
    sat_options o;
    int code = parse_sat_args(argc, argv, &o);
    if (code >= 0) {
        if (code == CLI_EXIT_USAGE) fprintf(stderr, "Run 'satfeat sat --help' for usage.\n");
        return code;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, o.backend, 0);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "satfeat: cannot create a %s context: %s\n",
                o.backend == SATFEAT_BACKEND_CUDA ? "CUDA" : "CPU", satfeat_status_string(st));
        return CLI_EXIT_FAILURE;
    }
    st = satfeat_ctx_set_threads(ctx, o.threads);
    if (st == SATFEAT_OK && o.memory_limit) st = satfeat_ctx_set_memory_limit(ctx, o.memory_limit);
    uint8_t *gray = NULL;
    int w = 0, h = 0;
    if (st == SATFEAT_OK) st = satfeat_image_load_gray8(ctx, o.image, &gray, &w, &h);
    if (st != SATFEAT_OK) {
        cli_report("cannot load image", st, ctx);
        code = CLI_EXIT_FAILURE;
    } else {
        code = run_sat(ctx, &o, gray, w, h);
    }
    satfeat_free(gray);
    satfeat_ctx_delete(ctx);
    return code;
}

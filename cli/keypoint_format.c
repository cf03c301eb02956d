/* keypoint_format.c - see keypoint_format.h. */
#include "keypoint_format.h"
#include "name_escape.h"

#include <stddef.h>
#include <string.h>

int cli_parse_format(const char *text, cli_format *out)
{
    static const char *const names[] = {"text", "csv", "json", "oxford"};
    for (int i = 0; i < 4; i++)
        if (text && !strcmp(text, names[i])) {
            *out = (cli_format)i;
            return 1;
        }
    fprintf(stderr, "satfeat: --format must be text, csv, json or oxford, got '%s'\n",
            text ? text : "");
    return 0;
}

const char *cli_format_extension(cli_format f)
{
    static const char *const ext[] = {"txt", "csv", "json", "oxford"};
    return ext[f];
}

/* A CSV field: the name C-escaped (cli_put_name_c, so no line break), then quoted (inner
 * quotes doubled) when it holds a comma or a quote. */
static void csv_field(FILE *f, const char *s)
{
    const int quote = strpbrk(s, ",\"") != NULL;
    if (quote) fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputs("\"\"", f);
        else {
            const char one[2] = {*s, '\0'};
            cli_put_name_c(f, one);
        }
    }
    if (quote) fputc('"', f);
}

void cli_format_begin(FILE *f, cli_format fmt, int dim)
{
    if (fmt != CLI_FORMAT_CSV) return;
    fputs("frame,image,x,y,size,response,sigma,angle,laplacian,octave,layer", f);
    for (int j = 0; j < dim; j++) fprintf(f, ",d%d", j);
    fputc('\n', f);
}

static void write_text(FILE *f, const cli_frame_keypoints *fr)
{
    fprintf(f, "# frame %d %dx%d %zu keypoints: ", fr->index, fr->width, fr->height, fr->n);
    cli_put_name_c(f, fr->path); /* escaped: a name never starts a line of its own */
    fputc('\n', f);
    fprintf(f, "# x y size response sigma laplacian octave layer%s\n",
            fr->dim ? (fr->dim == 64 ? " d0..d63" : " d0..d127") : "");
    for (size_t k = 0; k < fr->n; k++) {
        const satfeat_keypoint *p = &fr->kp[k];
        fprintf(f, "%.3f %.3f %.3f %.6e %.4f %d %d %d", p->x, p->y, p->size, p->response,
                p->sigma, p->laplacian, p->octave, p->layer);
        for (int j = 0; j < fr->dim; j++)
            fprintf(f, " %.9g", (double)fr->desc[k * (size_t)fr->dim + (size_t)j]);
        fputc('\n', f);
    }
}

static void write_csv(FILE *f, const cli_frame_keypoints *fr)
{
    for (size_t k = 0; k < fr->n; k++) {
        const satfeat_keypoint *p = &fr->kp[k];
        fprintf(f, "%d,", fr->index);
        csv_field(f, fr->path);
        fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%d,%d", p->x, p->y, p->size,
                p->response, p->sigma, p->angle, p->laplacian, p->octave, p->layer);
        for (int j = 0; j < fr->dim; j++)
            fprintf(f, ",%.9g", (double)fr->desc[k * (size_t)fr->dim + (size_t)j]);
        fputc('\n', f);
    }
}

/* The keypoint fields JSON writes as arrays: name, offset in satfeat_keypoint, 1 for an int. */
static const struct {
    const char *name;
    size_t offset;
    int is_int;
} json_fields[] = {
    {"x", offsetof(satfeat_keypoint, x), 0},
    {"y", offsetof(satfeat_keypoint, y), 0},
    {"size", offsetof(satfeat_keypoint, size), 0},
    {"response", offsetof(satfeat_keypoint, response), 0},
    {"sigma", offsetof(satfeat_keypoint, sigma), 0},
    {"angle", offsetof(satfeat_keypoint, angle), 0},
    {"laplacian", offsetof(satfeat_keypoint, laplacian), 1},
    {"octave", offsetof(satfeat_keypoint, octave), 1},
    {"layer", offsetof(satfeat_keypoint, layer), 1},
};

/* "name":[v0,v1,...] of field f of every keypoint. */
static void json_array(FILE *f, size_t field, const cli_frame_keypoints *fr)
{
    fprintf(f, "%s\"%s\":[", field ? "," : "", json_fields[field].name);
    for (size_t k = 0; k < fr->n; k++) {
        const char *p = (const char *)&fr->kp[k] + json_fields[field].offset;
        if (json_fields[field].is_int) {
            int v;
            memcpy(&v, p, sizeof v);
            fprintf(f, "%s%d", k ? "," : "", v);
        } else {
            double v;
            memcpy(&v, p, sizeof v);
            fprintf(f, "%s%.17g", k ? "," : "", v);
        }
    }
    fputc(']', f);
}

static void write_json(FILE *f, const cli_frame_keypoints *fr, const satfeat_detector_params *p)
{
    fprintf(f, "{\"frame\":%d,\"image\":", fr->index);
    cli_put_name_json(f, fr->path);
    fprintf(f, ",\"width\":%d,\"height\":%d,\"parameters\":{\"octaves\":%d,\"layers\":%d,"
               "\"init_step\":%d,\"threshold\":%.17g,\"max_keypoints\":%d,\"grid\":%d,"
               "\"per_cell\":%d,\"max_offset\":%.17g,\"unique_scales\":%d,\"upright\":%d,"
               "\"suppress_duplicates\":%d,\"descriptor\":\"%s\",\"descriptor_norm\":\"%s\","
               "\"orientation_refine\":%d,\"descriptor_haar\":%d,\"orientation_haar\":%d,"
               "\"orientation_filter\":\"%s\"},"
               "\"count\":%zu,\"keypoints\":{",
            fr->width, fr->height, p->octaves, p->layers, p->init_step, p->threshold,
            p->max_keypoints, p->grid, p->per_cell, p->max_offset, p->unique_scales, p->upright,
            p->suppress_duplicates,
            p->descriptor == SATFEAT_DESCRIPTOR_SURF128  ? "surf128"
            : p->descriptor == SATFEAT_DESCRIPTOR_SURF64 ? "surf64"
                                                         : "none",
            p->descriptor_norm == SATFEAT_DESCRIPTOR_NORM_L2 ? "l2" : "root", p->orientation_refine,
            p->descriptor_haar, p->orientation_haar,
            p->orientation_filter == SATFEAT_ORIENTATION_HAAR ? "haar" : "scharr", fr->n);
    for (size_t i = 0; i < sizeof json_fields / sizeof json_fields[0]; i++) json_array(f, i, fr);
    fputc('}', f);
    if (fr->dim) {
        fprintf(f, ",\"descriptor_dim\":%d,\"descriptors\":[", fr->dim);
        for (size_t k = 0; k < fr->n; k++) {
            fputs(k ? ",[" : "[", f);
            for (int j = 0; j < fr->dim; j++)
                fprintf(f, "%s%.9g", j ? "," : "",
                        (double)fr->desc[k * (size_t)fr->dim + (size_t)j]);
            fputc(']', f);
        }
        fputc(']', f);
    }
    fputs("}\n", f);
}

/* The Oxford/VLFeat region format: "1.0" (or the descriptor length) and the count, then per
 * keypoint x y a b c [descriptor], a (x-u)^2 + 2 b (x-u)(y-v) + c (y-v)^2 = 1 being the region:
 * here the circle of radius size / 2 (= 3.75 sigma), the region satfeat_eval_repeatability uses. */
static void write_oxford(FILE *f, const cli_frame_keypoints *fr)
{
    if (fr->dim) fprintf(f, "%d\n%zu\n", fr->dim, fr->n);
    else fprintf(f, "1.0\n%zu\n", fr->n);
    for (size_t k = 0; k < fr->n; k++) {
        const satfeat_keypoint *p = &fr->kp[k];
        const double r = 0.5 * p->size, a = 1.0 / (r * r);
        fprintf(f, "%.17g %.17g %.17g 0 %.17g", p->x, p->y, a, a);
        for (int j = 0; j < fr->dim; j++)
            fprintf(f, " %.9g", (double)fr->desc[k * (size_t)fr->dim + (size_t)j]);
        fputc('\n', f);
    }
}

void cli_format_frame(FILE *f, cli_format fmt, const cli_frame_keypoints *fr,
                      const satfeat_detector_params *params)
{
    switch (fmt) {
    case CLI_FORMAT_CSV: write_csv(f, fr); break;
    case CLI_FORMAT_JSON: write_json(f, fr, params); break;
    case CLI_FORMAT_OXFORD: write_oxford(f, fr); break;
    default: write_text(f, fr); break;
    }
}

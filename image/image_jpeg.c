/* image_jpeg.c - JPEG reading through libjpeg-turbo's libjpeg API, streamed from the open file.
 *
 * Output: one 8-bit gray channel. Gray and YCbCr files give the decoder's own JCS_GRAYSCALE
 * output, which is the luma (Y) channel exactly as `djpeg -grayscale` writes it; RGB-coded files
 * (Adobe transform 0) give libjpeg's RGB-to-gray conversion. CMYK and YCCK files are decoded to
 * CMYK by libjpeg and made gray here: with an Adobe APP14 marker the samples are stored inverted
 * (Photoshop's convention, 255 = no ink), so R = C K / 255, G = M K / 255, B = Y K / 255; without
 * it they are plain ink amounts and are inverted first; then Y = (77 R + 150 G + 29 B + 128) >> 8,
 * the weights of every other colour image. The EXIF orientation (APP1, tag 0x0112 of IFD0) is
 * applied, so the pixels and the reported size are upright as a viewer shows them.
 *
 * Errors: a kind of JPEG libjpeg does not decode (12-bit, lossless, hierarchical) is
 * SATFEAT_ERR_UNSUPPORTED with libjpeg's text, anything else it refuses SATFEAT_ERR_FORMAT; a file whose data ends before the last row is an
 * error ("truncated JPEG"), never a gray-filled image. Corrupt-data warnings libjpeg recovers
 * from (extraneous bytes, a resync) are tolerated, as viewers do. Reading stops after the last
 * row: what follows (a missing EOI, trailing bytes) is never read.
 *
 * Limits: the size is checked on the header, before libjpeg allocates anything for pixels; the
 * output, libjpeg's working memory (for progressive and multi-scan files the whole coefficient
 * buffer, 128 bytes per 8x8 block of every component) and ours are checked against the memory
 * budget, and libjpeg's large arrays are capped by the same budget (max_memory_to_use). A Huffman
 * file needs at least one bit per luma block, so a small file claiming a huge image fails before
 * decoding. At most SATFEAT_JPEG_MAX_SCANS scans are read (each walks every block). */
#include "image/image_internal.h"

#include <jpeglib.h>
#include <jerror.h>
#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* Progressive files have about 10 scans; thousands of tiny scans only burn time. */
#define SATFEAT_JPEG_MAX_SCANS 1000
/* The largest APP1 payload (a marker length is 16 bits, itself included). */
#define EXIF_PAYLOAD_MAX 65533
/* libjpeg's tables, state and small buffers, beyond the sample rows counted per component. */
#define JPEG_FIXED_OVERHEAD ((size_t)256 << 10)
/* Scanlines asked for per jpeg_read_scanlines call in the direct path. */
#define JPEG_ROWS_PER_CALL 16

/* One read: libjpeg's structures, where its errors go, our buffers and the request. */
typedef struct jpeg_reader {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    satfeat_image_request *req;
    int created;            /* cinfo was created: destroy it */
    satfeat_status status;  /* why the read stopped early */
    char message[JMSG_LENGTH_MAX + 64];
    unsigned char *exif;    /* the first Exif APP1 payload after its identifier, malloc'd */
    size_t exif_len;
    int orientation;        /* 1..8 */
    int cmyk;               /* decoded as JCS_CMYK */
    unsigned char *line;    /* one decoded scanline (orientations other than 1, or CMYK) */
    uint8_t *gray_line;
} jpeg_reader;

/* Stops the read: records why, then returns to guarded_read through longjmp. */
static void stop(jpeg_reader *r, satfeat_status status, const char *text)
{
    r->status = status;
    snprintf(r->message, sizeof r->message, "%s", text);
    longjmp(r->jump, 1);
}

static void on_jpeg_error(j_common_ptr c)
{
    jpeg_reader *r = c->client_data;
    char text[JMSG_LENGTH_MAX];
    (*c->err->format_message)(c, text);
    char full[sizeof r->message];
    snprintf(full, sizeof full, "JPEG: %s", text);
    /* kinds of JPEG this libjpeg does not decode (12-bit, lossless, hierarchical, arithmetic
     * when not compiled in), as opposed to broken files */
    const int code = c->err->msg_code;
    const int kind = code == JERR_BAD_PRECISION || code == JERR_SOF_UNSUPPORTED ||
                     code == JERR_NOT_COMPILED;
    stop(r, kind ? SATFEAT_ERR_UNSUPPORTED : SATFEAT_ERR_FORMAT, full);
}

/* Warnings (level -1): premature end of data is an error, since libjpeg would fill the rest of
 * the image with gray; other corrupt-data warnings are recovered from. Traces are dropped. */
static void on_jpeg_message(j_common_ptr c, int level)
{
    jpeg_reader *r = c->client_data;
    if (level < 0 && c->err->msg_code == JWRN_JPEG_EOF)
        stop(r, SATFEAT_ERR_FORMAT, "truncated JPEG (the data ends early)");
}

static void on_jpeg_progress(j_common_ptr c)
{
    jpeg_reader *r = c->client_data;
    if (r->cinfo.input_scan_number > SATFEAT_JPEG_MAX_SCANS) {
        char text[80];
        snprintf(text, sizeof text, "JPEG: more than %d scans", SATFEAT_JPEG_MAX_SCANS);
        stop(r, SATFEAT_ERR_FORMAT, text);
    }
}

/* The next byte of the marker being read (the stdio source never suspends: at the end of the
 * file it warns, which stops the read, so this always returns a byte or does not return). */
static unsigned next_byte(j_decompress_ptr c)
{
    struct jpeg_source_mgr *src = c->src;
    if (src->bytes_in_buffer == 0 && !(*src->fill_input_buffer)(c)) ERREXIT(c, JERR_CANT_SUSPEND);
    src->bytes_in_buffer--;
    return *src->next_input_byte++;
}

/* Copies n bytes of the marker being read into dst. */
static void read_bytes(j_decompress_ptr c, unsigned char *dst, size_t n)
{
    struct jpeg_source_mgr *src = c->src;
    while (n > 0) {
        if (src->bytes_in_buffer == 0 && !(*src->fill_input_buffer)(c))
            ERREXIT(c, JERR_CANT_SUSPEND);
        size_t k = src->bytes_in_buffer < n ? src->bytes_in_buffer : n;
        memcpy(dst, src->next_input_byte, k);
        src->next_input_byte += k;
        src->bytes_in_buffer -= k;
        dst += k;
        n -= k;
    }
}

/*
 * APP1 marker processor. libjpeg's jpeg_save_markers would keep every APP1 (up to 64 KiB each,
 * any number of them: unbounded memory on a hostile file); this keeps the payload of the first
 * Exif one only, in one buffer, and skips the others (XMP, ...).
 */
static boolean on_app1(j_decompress_ptr c)
{
    jpeg_reader *r = c->client_data;
    const unsigned hi = next_byte(c);
    long left = (long)(hi << 8 | next_byte(c)) - 2;
    static const unsigned char exif_id[6] = {'E', 'x', 'i', 'f', 0, 0};
    if (left >= (long)sizeof exif_id && !r->exif) {
        unsigned char id[sizeof exif_id];
        read_bytes(c, id, sizeof id);
        left -= (long)sizeof id;
        if (!memcmp(id, exif_id, sizeof id)) {
            r->exif = malloc(EXIF_PAYLOAD_MAX);
            if (!r->exif) stop(r, SATFEAT_ERR_ALLOC, "JPEG: out of memory for the EXIF data");
            read_bytes(c, r->exif, (size_t)left);
            r->exif_len = (size_t)left;
            left = 0;
        }
    }
    if (left > 0) (*c->src->skip_input_data)(c, left);
    return TRUE;
}

/* Width of the image and of one output pixel row after orientation. */
static int oriented_swaps(int o)
{
    return o >= 5;
}

/* Bytes libjpeg needs besides our buffers: the whole coefficient buffer when the file has more
 * than one scan (progressive, or components in separate scans), then a few rows of samples of
 * every component (context rows for upsampling), then tables and state. */
static size_t libjpeg_working_bytes(const struct jpeg_decompress_struct *ci)
{
    const int multi_scan = ci->progressive_mode || ci->comps_in_scan < ci->num_components;
    size_t bytes = JPEG_FIXED_OVERHEAD;
    for (int i = 0; i < ci->num_components; i++) {
        const jpeg_component_info *comp = &ci->comp_info[i];
        const size_t h = (size_t)comp->h_samp_factor, v = (size_t)comp->v_samp_factor;
        const size_t wb = ((size_t)comp->width_in_blocks + h - 1) / h * h;
        const size_t hb = ((size_t)comp->height_in_blocks + v - 1) / v * v;
        if (multi_scan) bytes += wb * hb * DCTSIZE2 * sizeof(JCOEF);
        bytes += wb * DCTSIZE * v * DCTSIZE * 4; /* sample rows: main buffer, context, upsampling */
    }
    return bytes;
}

/* Reads the header (markers up to the first scan), decides the output colour space and fills
 * req->info with the upright size. */
static void read_header(jpeg_reader *r)
{
    satfeat_image_request *req = r->req;
    struct jpeg_decompress_struct *ci = &r->cinfo;
    jpeg_stdio_src(ci, req->file);
    jpeg_set_marker_processor(ci, JPEG_APP0 + 1, on_app1);
    (void)jpeg_read_header(ci, TRUE);
    switch (ci->jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB: ci->out_color_space = JCS_GRAYSCALE; break;
    case JCS_CMYK:
    case JCS_YCCK:
        ci->out_color_space = JCS_CMYK;
        r->cmyk = 1;
        break;
    default: {
        char text[96];
        snprintf(text, sizeof text,
                 "JPEG with %d components in an unknown colour space is not supported",
                 ci->num_components);
        stop(r, SATFEAT_ERR_UNSUPPORTED, text);
    }
    }
    r->orientation = satfeat_exif_orientation(r->exif, r->exif_len);
    const int sw = oriented_swaps(r->orientation);
    const long long w = ci->image_width, h = ci->image_height;
    satfeat_status st = satfeat_image_accept_size(req, sw ? h : w, sw ? w : h);
    if (st != SATFEAT_OK) {
        r->status = st; /* the message is in the context already */
        r->message[0] = '\0';
        longjmp(r->jump, 1);
    }
    req->info.width = (int)(sw ? h : w);
    req->info.height = (int)(sw ? w : h);
    req->info.channels = ci->num_components;
    req->info.bit_depth = 8;
}

/* The budget, then the data-volume check: both before libjpeg allocates its large arrays. */
static void check_memory_and_volume(jpeg_reader *r)
{
    satfeat_image_request *req = r->req;
    struct jpeg_decompress_struct *ci = &r->cinfo;
    const int w = (int)ci->image_width, h = (int)ci->image_height;
    const size_t line = (size_t)w * 5; /* a CMYK scanline and its gray row */
    const size_t extra = libjpeg_working_bytes(ci) + line + EXIF_PAYLOAD_MAX;
    satfeat_status st = satfeat_image_check_budget(req, w, h, 1, 1, extra);
    if (st != SATFEAT_OK) {
        r->status = st;
        r->message[0] = '\0';
        longjmp(r->jump, 1);
    }
    /* Huffman codes are at least one bit long and every block of a complete file codes its DC
     * coefficient, so the file holds at least one bit per luma block (arithmetic coding can go
     * below that: only the budget bounds those). */
    const jpeg_component_info *y = &ci->comp_info[0];
    const unsigned long long blocks =
        (unsigned long long)y->width_in_blocks * (unsigned long long)y->height_in_blocks;
    if (!ci->arith_code && (unsigned long long)req->file_size * 8ull < blocks) {
        char text[160];
        snprintf(text, sizeof text, "JPEG: %ld bytes of data cannot hold %dx%d pixels",
                 req->file_size, w, h);
        stop(r, SATFEAT_ERR_FORMAT, text);
    }
    /* cap libjpeg's large (virtual) arrays by what the budget leaves after our pixels */
    const size_t budget = satfeat_memory_budget(req->ctx), pixels = (size_t)w * (size_t)h;
    const size_t left = budget > pixels ? budget - pixels : 1;
    ci->mem->max_memory_to_use = left > (size_t)LONG_MAX ? LONG_MAX : (long)left;
}

/* CMYK as libjpeg outputs it to gray (see the file comment). */
static void cmyk_to_gray(const unsigned char *cmyk, uint8_t *gray, int w, int inverted)
{
    const unsigned flip = inverted ? 0u : 255u;
    for (int x = 0; x < w; x++, cmyk += 4) {
        const unsigned c = cmyk[0] ^ flip, m = cmyk[1] ^ flip, yy = cmyk[2] ^ flip,
                       k = cmyk[3] ^ flip; /* x ^ 255 == 255 - x for bytes */
        gray[x] = satfeat_luma8((c * k + 127u) / 255u, (m * k + 127u) / 255u,
                                (yy * k + 127u) / 255u);
    }
}

/* Decodes every scanline into the upright output. */
static void read_rows(jpeg_reader *r, uint8_t *out)
{
    struct jpeg_decompress_struct *ci = &r->cinfo;
    const int w = (int)ci->output_width, h = (int)ci->output_height;
    if (!r->cmyk && r->orientation == 1) {
        /* the common case: libjpeg writes straight into the output rows */
        while ((int)ci->output_scanline < h) {
            JSAMPROW rows[JPEG_ROWS_PER_CALL];
            const int y0 = (int)ci->output_scanline;
            const int n = h - y0 < JPEG_ROWS_PER_CALL ? h - y0 : JPEG_ROWS_PER_CALL;
            for (int i = 0; i < n; i++) rows[i] = out + (size_t)(y0 + i) * (size_t)w;
            if (jpeg_read_scanlines(ci, rows, (JDIMENSION)n) == 0)
                stop(r, SATFEAT_ERR_FORMAT, "JPEG: the decoder returned no row");
        }
        return;
    }
    r->line = malloc((size_t)w * (size_t)ci->output_components);
    r->gray_line = r->cmyk ? malloc((size_t)w) : r->line;
    if (!r->line || !r->gray_line) stop(r, SATFEAT_ERR_ALLOC, "JPEG: out of memory for a row");
    while ((int)ci->output_scanline < h) {
        const int y = (int)ci->output_scanline;
        JSAMPROW row = r->line;
        if (jpeg_read_scanlines(ci, &row, 1) != 1)
            stop(r, SATFEAT_ERR_FORMAT, "JPEG: the decoder returned no row");
        if (r->cmyk) cmyk_to_gray(r->line, r->gray_line, w, ci->saw_Adobe_marker);
        ptrdiff_t base, step;
        satfeat_exif_row_map(r->orientation, w, h, y, &base, &step);
        uint8_t *dst = out + base;
        for (int x = 0; x < w; x++, dst += step) *dst = r->gray_line[x];
    }
}

/* The whole read, under the longjmp of on_jpeg_error / stop. */
static void read_body(jpeg_reader *r)
{
    satfeat_image_request *req = r->req;
    read_header(r);
    if (req->header_only) return;
    check_memory_and_volume(r);
    struct jpeg_decompress_struct *ci = &r->cinfo;
    /* progressive and multi-scan files are consumed whole here (the scan limit applies) */
    (void)jpeg_start_decompress(ci);
    satfeat_raw_image *raw = &req->pixels;
    raw->samples = malloc((size_t)ci->output_width * (size_t)ci->output_height);
    if (!raw->samples) stop(r, SATFEAT_ERR_ALLOC, "JPEG: out of memory for the pixels");
    raw->width = req->info.width;
    raw->height = req->info.height;
    raw->channels = 1;
    raw->bytes_per_sample = 1;
    raw->maxval = 255;
    read_rows(r, raw->samples);
    /* not jpeg_finish_decompress: it would read on to the EOI, and what follows the last row
     * (trailing data, a missing EOI) does not change a pixel */
    jpeg_abort_decompress(ci);
}

/* Runs read_body with every libjpeg error and our own stops returning here. Nothing of this
 * frame changes between setjmp and longjmp: the state lives in *r. */
static satfeat_status guarded_read(jpeg_reader *r)
{
    if (setjmp(r->jump)) {
        if (r->message[0] == '\0') return r->status; /* already in the context */
        return satfeat_image_fail(r->req, r->status, "%s", r->message);
    }
    r->cinfo.err = jpeg_std_error(&r->err);
    r->err.error_exit = on_jpeg_error;
    r->err.emit_message = on_jpeg_message;
    r->cinfo.client_data = r;
    jpeg_create_decompress(&r->cinfo);
    r->created = 1;
    r->progress.progress_monitor = on_jpeg_progress;
    r->cinfo.progress = &r->progress;
    read_body(r);
    return SATFEAT_OK;
}

satfeat_status satfeat_jpeg_read(satfeat_image_request *req)
{
    jpeg_reader *r = calloc(1, sizeof *r);
    if (!r) return satfeat_image_fail(req, SATFEAT_ERR_ALLOC, "JPEG: out of memory");
    r->req = req;
    r->status = SATFEAT_ERR_FORMAT;
    const satfeat_status st = guarded_read(r);
    if (r->created) jpeg_destroy_decompress(&r->cinfo);
    if (r->gray_line != r->line) free(r->gray_line);
    free(r->line);
    free(r->exif);
    free(r);
    return st; /* on error the caller frees req->pixels */
}

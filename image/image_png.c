/* image_png.c - PNG reading and writing through libpng, streamed from and to the open file.
 *
 * Reading keeps the samples as stored: every file is decoded to 8 bits per channel with its own
 * channels (gray, gray+alpha, RGB, RGBA; palettes, tRNS and 1/2/4-bit gray expanded), so nothing
 * composes alpha or converts colour to gray. 16-bit samples become round(v * 255 / 65535)
 * (png_set_scale_16), and no gamma transform is ever requested, so gAMA / sRGB / iCCP chunks
 * change no sample value.
 *
 * Nothing is read whole: the IHDR is read by hand and checked against the size limits, the chunk
 * lengths are walked with seeks (no chunk body is read) to bound the image data, and the decoded
 * size is checked against the memory budget before the one pixel allocation. Against
 * decompression bombs: deflate expands at most 1032:1, so a small file claiming a large image
 * fails before anything large is allocated. */
#include "image/image_internal.h"
#include "src/file_replace.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

#define PNG_SIG_BYTES 8
#define PNG_IHDR_END 33 /* signature, IHDR length and type, 13 data bytes, CRC */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The IHDR fields the checks before decoding need. */
typedef struct png_header {
    uint32_t width, height;
    unsigned depth, color_type;
} png_header;

/* Reads the IHDR chunk by hand and validates the size (true values, not clipped) before libpng
 * or we allocate anything. */
static satfeat_status check_ihdr(satfeat_image_request *req, png_header *h)
{
    unsigned char head[PNG_IHDR_END];
    if (req->file_size < PNG_IHDR_END || fread(head, 1, sizeof head, req->file) != sizeof head)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "truncated: too short for a PNG header");
    if (be32(head + 8) != 13 || memcmp(head + 12, "IHDR", 4) != 0)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "PNG: the first chunk is not IHDR");
    h->width = be32(head + 16);
    h->height = be32(head + 20);
    h->depth = head[24];
    h->color_type = head[25];
    return satfeat_image_accept_size(req, (long long)h->width, (long long)h->height);
}

/* Sums the lengths of the IDAT chunks, reading only the 8-byte chunk headers and seeking over
 * the bodies; the file is left positioned anywhere. Stops at IEND or the first malformed chunk
 * (libpng reports it while decoding). */
static unsigned long long idat_bytes(satfeat_image_request *req)
{
    unsigned long long total = 0;
    long pos = PNG_IHDR_END;
    unsigned char ch[8];
    while (req->file_size - pos >= 12 && fseek(req->file, pos, SEEK_SET) == 0 &&
           fread(ch, 1, sizeof ch, req->file) == sizeof ch) {
        const uint32_t n = be32(ch);
        if (n > 0x7fffffffu || (long long)n > (long long)req->file_size - pos - 12) break;
        if (!memcmp(ch + 4, "IEND", 4)) break;
        if (!memcmp(ch + 4, "IDAT", 4)) total += n;
        pos += 12 + (long)n;
    }
    return total;
}

/*
 * Rejects a header whose pixels cannot come out of the file's image data: deflate expands at
 * most 1032:1 (a 258-byte copy coded in 2 bits), so a small file claiming a large image fails
 * here instead of after a large allocation.
 */
static satfeat_status check_data_volume(satfeat_image_request *req, const png_header *h,
                                        unsigned long long idat)
{
    static const unsigned channels_of_type[7] = {1, 0, 3, 1, 2, 0, 4};
    unsigned bits = h->color_type < 7 ? channels_of_type[h->color_type] * h->depth : 0;
    /* Filtered rows hold at least width * bits / 8 bytes each (interlaced images hold more). */
    unsigned long long raw = (unsigned long long)h->width * h->height * bits / 8;
    if (bits != 0 && raw > 1032ull * idat + 1024ull)
        return satfeat_image_fail(req, SATFEAT_ERR_FORMAT,
                                  "PNG: %llu bytes of image data cannot hold %lux%lu pixels", idat,
                                  (unsigned long)h->width, (unsigned long)h->height);
    return SATFEAT_OK; /* an invalid type or depth is left for libpng to report */
}

/* One libpng read: its structures, where its errors go, and the request it fills. */
typedef struct png_reader {
    png_structp png;
    png_infop info;
    satfeat_image_request *req;
    png_bytep *rows;
    satfeat_status status; /* set by the body when it stops early with its own error */
    char message[200];     /* libpng's error text */
} png_reader;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_reader *r = png_get_error_ptr(png);
    snprintf(r->message, sizeof r->message, "%s", msg ? msg : "error");
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* benign: libpng carries on (e.g. a bad CRC in an ancillary chunk) */
}

/* Reads the chunks up to the image data and sets the transforms: 8 bits per sample, palettes,
 * tRNS and low-depth gray expanded, interlacing handled. Fills req->info. */
static void read_header_chunks(png_reader *r)
{
    satfeat_image_request *req = r->req;
    png_init_io(r->png, req->file);
    png_set_user_limits(r->png, SATFEAT_IMAGE_MAX_SIDE, SATFEAT_IMAGE_MAX_SIDE);
    png_read_info(r->png, r->info);
    const int depth = png_get_bit_depth(r->png, r->info);
    png_set_expand(r->png);
    png_set_scale_16(r->png);
    (void)png_set_interlace_handling(r->png);
    png_read_update_info(r->png, r->info);
    req->info.width = (int)png_get_image_width(r->png, r->info);
    req->info.height = (int)png_get_image_height(r->png, r->info);
    req->info.channels = png_get_channels(r->png, r->info);
    req->info.bit_depth = depth == 16 ? 16 : 8;
}

/* The whole read (run under libpng's error handler): header, budget, allocation, rows. */
static void read_body(png_reader *r)
{
    satfeat_image_request *req = r->req;
    read_header_chunks(r);
    if (req->header_only) return;
    const int w = req->info.width, h = req->info.height, ch = req->info.channels;
    const size_t row = (size_t)w * (size_t)ch;
    if (png_get_rowbytes(r->png, r->info) != row) {
        r->status = satfeat_image_fail(req, SATFEAT_ERR_FORMAT, "PNG: unexpected row size");
        return;
    }
    r->status = satfeat_image_check_budget(req, w, h, ch, 1, (size_t)h * sizeof(png_bytep));
    if (r->status != SATFEAT_OK) return;
    satfeat_raw_image *raw = &req->pixels;
    raw->samples = malloc(row * (size_t)h);
    r->rows = malloc((size_t)h * sizeof(png_bytep));
    if (!raw->samples || !r->rows) {
        r->status = satfeat_image_fail(req, SATFEAT_ERR_ALLOC, "cannot allocate %zu bytes",
                                       row * (size_t)h);
        return;
    }
    raw->width = w;
    raw->height = h;
    raw->channels = ch;
    raw->bytes_per_sample = 1;
    raw->maxval = 255;
    for (int y = 0; y < h; y++) r->rows[y] = (png_bytep)raw->samples + (size_t)y * row;
    png_read_image(r->png, r->rows);
}

/* Runs read_body with libpng's errors returning here (no local of this frame changes between
 * setjmp and longjmp: the state lives in *r). */
static satfeat_status guarded_read(png_reader *r)
{
    if (setjmp(png_jmpbuf(r->png)))
        return satfeat_image_fail(r->req, SATFEAT_ERR_FORMAT, "PNG: %s", r->message);
    read_body(r);
    return r->status;
}

satfeat_status satfeat_png_read(satfeat_image_request *req)
{
    png_header h = {0, 0, 0, 0};
    satfeat_status st = check_ihdr(req, &h);
    if (st == SATFEAT_OK && !req->header_only) st = check_data_volume(req, &h, idat_bytes(req));
    if (st != SATFEAT_OK) return st;
    if (fseek(req->file, 0, SEEK_SET) != 0)
        return satfeat_image_fail(req, SATFEAT_ERR_IO, "cannot seek");
    png_reader r;
    memset(&r, 0, sizeof r);
    r.req = req;
    r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, on_png_error, on_png_warning);
    if (r.png) r.info = png_create_info_struct(r.png);
    if (!r.png || !r.info) st = satfeat_image_fail(req, SATFEAT_ERR_ALLOC, "PNG: out of memory");
    else st = guarded_read(&r);
    png_destroy_read_struct(r.png ? &r.png : NULL, r.info ? &r.info : NULL, NULL);
    free(r.rows);
    return st; /* on error the caller frees req->pixels */
}

satfeat_status satfeat_png_write(satfeat_ctx *ctx, const char *path, const uint8_t *pixels,
                                 size_t stride, int width, int height, int channels)
{
    if (stride > 0x7fffffff)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "%s: stride %zu is too large for libpng", path,
                            stride);
    satfeat_replace out;
    satfeat_status st = satfeat_replace_open(ctx, path, &out);
    if (st != SATFEAT_OK) return st;
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)width;
    img.height = (png_uint_32)height;
    img.format = channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    int ok = png_image_write_to_stdio(&img, out.file, 0, pixels, (png_int_32)stride, NULL);
    char message[sizeof img.message];
    memcpy(message, img.message, sizeof message);
    png_image_free(&img);
    return satfeat_replace_close(ctx, path, &out, ok, "PNG write", ok ? NULL : message);
}

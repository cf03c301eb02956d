/* image_exif.c - the EXIF orientation of a JPEG: the one tag read from an APP1 payload, with
 * every offset checked (the payload is hostile input), and the pixel map that makes the stored
 * image upright. Only IFD0 is read, so no IFD chain is followed and a looping chain cannot loop. */
#include "image/image_internal.h"

#define EXIF_TAG_ORIENTATION 0x0112u
#define TIFF_TYPE_SHORT 3u
#define IFD_ENTRY_BYTES 12u

/* 16 and 32-bit TIFF integers in the payload's byte order ("II" little, "MM" big endian). */
static unsigned tiff16(const unsigned char *p, int big)
{
    return big ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
}

static unsigned long tiff32(const unsigned char *p, int big)
{
    return big ? (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 |
                     (unsigned long)p[2] << 8 | p[3]
               : (unsigned long)p[3] << 24 | (unsigned long)p[2] << 16 |
                     (unsigned long)p[1] << 8 | p[0];
}

int satfeat_exif_orientation(const unsigned char *tiff, size_t n)
{
    if (!tiff || n < 8) return 1;
    int big;
    if (tiff[0] == 'I' && tiff[1] == 'I') big = 0;
    else if (tiff[0] == 'M' && tiff[1] == 'M') big = 1;
    else return 1;
    if (tiff16(tiff + 2, big) != 42u) return 1;
    const unsigned long ifd = tiff32(tiff + 4, big);
    /* compare by subtraction: ifd may be anything up to 2^32 - 1 */
    if (ifd > n || n - ifd < 2) return 1;
    const unsigned count = tiff16(tiff + ifd, big);
    const size_t room = (n - ifd - 2) / IFD_ENTRY_BYTES; /* entries that lie inside the payload */
    for (size_t i = 0; i < count && i < room; i++) {
        const unsigned char *e = tiff + ifd + 2 + i * IFD_ENTRY_BYTES;
        if (tiff16(e, big) != EXIF_TAG_ORIENTATION) continue;
        /* a SHORT with count 1 sits left-justified in the 4-byte value field */
        if (tiff16(e + 2, big) != TIFF_TYPE_SHORT || tiff32(e + 4, big) < 1) return 1;
        const unsigned v = tiff16(e + 8, big);
        return v >= 1 && v <= 8 ? (int)v : 1;
    }
    return 1;
}

void satfeat_exif_row_map(int o, int w, int h, int y, ptrdiff_t *base, ptrdiff_t *step)
{
    /* Stored pixel (x, y) goes to upright (X, Y); orientations 5..8 swap the sides (the output
     * is h wide). 2 mirror; 3 rotate 180; 4 flip; 5 transpose; 6 rotate 90 clockwise;
     * 7 transverse; 8 rotate 90 anticlockwise (TIFF 6.0 / EXIF 2.3 "Orientation"). */
    const ptrdiff_t W = w, H = h, Y = y;
    switch (o) {
    case 2: *base = Y * W + W - 1; *step = -1; break;          /* (w-1-x, y) */
    case 3: *base = (H - 1 - Y) * W + W - 1; *step = -1; break; /* (w-1-x, h-1-y) */
    case 4: *base = (H - 1 - Y) * W; *step = 1; break;          /* (x, h-1-y) */
    case 5: *base = Y; *step = H; break;                        /* (y, x) */
    case 6: *base = H - 1 - Y; *step = H; break;                /* (h-1-y, x) */
    case 7: *base = (W - 1) * H + H - 1 - Y; *step = -H; break; /* (h-1-y, w-1-x) */
    case 8: *base = (W - 1) * H + Y; *step = -H; break;         /* (y, w-1-x) */
    default: *base = Y * W; *step = 1; break;                   /* 1: as stored */
    }
}

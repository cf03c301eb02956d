/* name_escape.c - see name_escape.h. */
#include "name_escape.h"

void cli_put_name_c(FILE *f, const char *name)
{
    for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
        switch (*s) {
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*s < 0x20 || *s == 0x7f) fprintf(f, "\\x%02x", *s);
            else fputc(*s, f);
        }
    }
}

int cli_utf8_sequence(const unsigned char *s, int *len)
{
    const unsigned c = s[0];
    unsigned min, cp;
    int n;
    if (c < 0x80) {
        *len = 1;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) n = 2, min = 0x80, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) n = 3, min = 0x800, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, min = 0x10000, cp = c & 0x07;
    else return 0; /* a continuation byte, an overlong lead (c0, c1) or beyond U+10FFFF */
    for (int k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
        cp = cp << 6 | (s[k] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    *len = n;
    return 1;
}

void cli_put_name_json(FILE *f, const char *name)
{
    fputc('"', f);
    const unsigned char *s = (const unsigned char *)name;
    while (*s) {
        int len = 1;
        if (*s == '"' || *s == '\\') {
            fputc('\\', f);
            fputc(*s, f);
        } else if (*s < 0x20) {
            fprintf(f, "\\u%04x", *s);
        } else if (cli_utf8_sequence(s, &len)) {
            fwrite(s, 1, (size_t)len, f);
        } else {
            fprintf(f, "\\udc%02x", *s);
            len = 1;
        }
        s += len;
    }
    fputc('"', f);
}

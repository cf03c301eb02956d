/* cli_number.c - the CLI's one strict number parser: an option value is a whole decimal number
 * as a person writes it, or a usage error. No leading or trailing blanks, no '+', no hex or
 * octal prefixes, no "inf"/"nan", no trailing junk; doubles take an optional fraction and a
 * decimal exponent ("0.0004", "4e-4"). */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "commands.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Skips a run of decimal digits; returns how many there were. */
static int skip_digits(const char **s)
{
    int n = 0;
    while (isdigit((unsigned char)**s)) {
        (*s)++;
        n++;
    }
    return n;
}

/* 1 when `text` is [-]digits, nothing else. */
static int is_decimal_integer(const char *text)
{
    const char *s = text;
    if (*s == '-') s++;
    return skip_digits(&s) > 0 && *s == '\0';
}

/* 1 when `text` is [-]digits[.digits][(e|E)[-+]digits] or [-].digits[...], nothing else. */
static int is_decimal_number(const char *text)
{
    const char *s = text;
    if (*s == '-') s++;
    int mantissa = skip_digits(&s);
    if (*s == '.') {
        s++;
        mantissa += skip_digits(&s);
    }
    if (mantissa == 0) return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+') s++;
        if (skip_digits(&s) == 0) return 0;
    }
    return *s == '\0';
}

int cli_parse_int(const char *text, int lo, int hi, const char *what, int *out)
{
    long v = 0;
    int ok = text && is_decimal_integer(text);
    if (ok) {
        errno = 0;
        v = strtol(text, NULL, 10);
        ok = errno == 0 && v >= lo && v <= hi;
    }
    if (!ok) {
        fprintf(stderr, "satfeat: %s must be an integer in [%d, %d], got '%s'\n", what, lo, hi,
                text ? text : "");
        return 0;
    }
    *out = (int)v;
    return 1;
}

int cli_parse_double(const char *text, double lo, double hi, const char *what, double *out)
{
    double v = 0;
    int ok = text && is_decimal_number(text);
    if (ok) {
        errno = 0;
        v = strtod(text, NULL);
        ok = errno == 0 && isfinite(v) && v >= lo && v <= hi;
    }
    if (!ok) {
        fprintf(stderr, "satfeat: %s must be a number in [%g, %g], got '%s'\n", what, lo, hi,
                text ? text : "");
        return 0;
    }
    *out = v;
    return 1;
}

int cli_parse_fraction(const char *text, const char *what, double *out)
{
    double v = 0;
    int ok = text && is_decimal_number(text);
    if (ok) {
        errno = 0;
        v = strtod(text, NULL);
        ok = errno == 0 && v > 0.0 && v <= 1.0;
    }
    if (!ok) {
        fprintf(stderr, "satfeat: %s must be a number in (0, 1], got '%s'\n", what,
                text ? text : "");
        return 0;
    }
    *out = v;
    return 1;
}

int cli_max_threads(void)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long n = cores >= 1 && cores <= 1024 ? cores : 1;
    return (int)(CLI_THREADS_PER_CORE * n);
}

int cli_parse_threads(const char *text, int *out)
{
    const int hi = cli_max_threads();
    long v = -1;
    if (text && is_decimal_integer(text)) {
        errno = 0;
        v = strtol(text, NULL, 10);
        if (errno) v = -1;
    }
    if (v < 0 || v > hi) {
        fprintf(stderr,
                "satfeat: --threads must be an integer in [0, %d] (at most %d per core, %d cores "
                "online), got '%s'\n", hi, CLI_THREADS_PER_CORE, hi / CLI_THREADS_PER_CORE,
                text ? text : "");
        return 0;
    }
    *out = (int)v;
    return 1;
}

int cli_parse_devices(const char *text, int *devices, int max, int *n)
{
    *n = 0;
    if (text && !strcmp(text, "all")) return 1;
    const char *s = text ? text : "";
    for (;;) {
        char item[16];
        const size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof item || *n >= max) break;
        memcpy(item, s, len);
        item[len] = '\0';
        int d = 0;
        if (!cli_parse_int(item, 0, 1023, "--devices entry", &d)) return 0;
        for (int k = 0; k < *n; k++)
            if (devices[k] == d) {
                fprintf(stderr, "satfeat: --devices names device %d twice\n", d);
                return 0;
            }
        devices[(*n)++] = d;
        if (s[len] == '\0') return 1;
        s += len + 1;
    }
    fprintf(stderr, "satfeat: --devices must be 'all' or a list like 0,1 (at most %d), got '%s'\n",
            max, text ? text : "");
    return 0;
}

int cli_parse_memory_limit(const char *text, size_t *out)
{
    const char *s = text;
    unsigned long long v = 0;
    int digits = 0;
    for (; isdigit((unsigned char)*s); s++, digits++) {
        if (v > (ULLONG_MAX - 9) / 10) digits = -1000; /* overflow: refused below */
        v = v * 10 + (unsigned)(*s - '0');
    }
    unsigned shift = 0;
    if (*s == 'K' || *s == 'k') shift = 10;
    else if (*s == 'M' || *s == 'm') shift = 20;
    else if (*s == 'G' || *s == 'g') shift = 30;
    else if (*s == 'T' || *s == 't') shift = 40;
    if (shift) s++;
    if (digits <= 0 || *s != '\0') {
        fprintf(stderr, "satfeat: --memory-limit must be a number of bytes with an optional K, M, "
                        "G or T suffix (powers of 1024), got '%s'\n", text);
        return 0;
    }
    if (v == 0) {
        fprintf(stderr, "satfeat: --memory-limit must be above 0 (leave it out for the default)\n");
        return 0;
    }
    if (v > (unsigned long long)SIZE_MAX >> shift) {
        fprintf(stderr, "satfeat: --memory-limit %s is too large\n", text);
        return 0;
    }
    *out = (size_t)(v << shift);
    return 1;
}

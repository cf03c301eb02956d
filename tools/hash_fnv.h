/* hash_fnv.h - FNV-1a 64 digests of the developer program satfeat_hash_outputs (header-only,
 * shared by its parts). Values are hashed byte by byte in a fixed order, never as struct bytes. */
#ifndef SATFEAT_TOOLS_HASH_FNV_H
#define SATFEAT_TOOLS_HASH_FNV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FNV_INIT 14695981039346656037ull

/* FNV-1a 64 over bytes. */
static inline void fnv_bytes(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= 1099511628211ull;
    }
}

static inline void fnv_u64(uint64_t *h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    fnv_bytes(h, b, 8);
}

static inline void fnv_double(uint64_t *h, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    fnv_u64(h, u);
}

static inline void fnv_float(uint64_t *h, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    fnv_u64(h, u);
}

static inline void fnv_int(uint64_t *h, int v) { fnv_u64(h, (uint64_t)(int64_t)v); }

#endif

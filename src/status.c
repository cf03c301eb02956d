/* status.c - status strings, version queries and the library-wide free. */
#include "satfeat.h"

#include <stdlib.h>

#define SATFEAT_STR2(x) #x
#define SATFEAT_STR(x) SATFEAT_STR2(x)

const char *satfeat_status_string(satfeat_status status)
{
    switch (status) {
    case SATFEAT_OK: return "ok";
    case SATFEAT_ERR_ARG: return "invalid argument";
    case SATFEAT_ERR_ALLOC: return "out of memory";
    case SATFEAT_ERR_OVERFLOW: return "size too large";
    case SATFEAT_ERR_IO: return "input/output error";
    case SATFEAT_ERR_FORMAT: return "malformed or unsupported file";
    case SATFEAT_ERR_CUDA: return "CUDA error";
    case SATFEAT_ERR_NO_DEVICE: return "no CUDA device";
    case SATFEAT_ERR_UNSUPPORTED: return "unsupported operation";
    case SATFEAT_ERR_CAPACITY: return "output buffer too small";
    case SATFEAT_ERR_NO_MODEL: return "no model found";
    case SATFEAT_ERR_LIMIT: return "memory limit exceeded";
    }
    return "unknown status";
}

const char *satfeat_version_string(void)
{
    return SATFEAT_STR(SATFEAT_VERSION_MAJOR) "." SATFEAT_STR(SATFEAT_VERSION_MINOR) "." SATFEAT_STR(
        SATFEAT_VERSION_PATCH);
}

void satfeat_version(int *major, int *minor, int *patch)
{
    if (major) *major = SATFEAT_VERSION_MAJOR;
    if (minor) *minor = SATFEAT_VERSION_MINOR;
    if (patch) *patch = SATFEAT_VERSION_PATCH;
}

void satfeat_free(void *ptr)
{
    free(ptr);
}

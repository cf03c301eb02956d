/* memory_budget.c - how much host memory one image read or one detector may ask for: the
 * context's limit (satfeat_ctx_set_memory_limit), by default half of the machine's memory. */
#define _DEFAULT_SOURCE /* sysconf(_SC_PHYS_PAGES) */
#include "src/context_internal.h"

#include <unistd.h>

/* Used when the machine's memory cannot be measured. */
#define BUDGET_FALLBACK_BYTES ((size_t)4 << 30)

size_t satfeat_default_memory_limit(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return BUDGET_FALLBACK_BYTES;
    const unsigned long long half = (unsigned long long)pages * (unsigned long long)page / 2;
    return half > (unsigned long long)SIZE_MAX ? SIZE_MAX : (size_t)half;
}

size_t satfeat_memory_budget(const satfeat_ctx *ctx)
{
    return ctx && ctx->memory_limit ? ctx->memory_limit : satfeat_default_memory_limit();
}

satfeat_status satfeat_check_budget(satfeat_ctx *ctx, const char *what, size_t bytes)
{
    const size_t budget = satfeat_memory_budget(ctx);
    if (bytes <= budget) return SATFEAT_OK;
    return satfeat_fail(ctx, SATFEAT_ERR_LIMIT,
                        "%s need %zu bytes, above the memory limit of %zu bytes", what, bytes,
                        budget);
}

satfeat_status satfeat_ctx_set_memory_limit(satfeat_ctx *ctx, size_t bytes)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    ctx->memory_limit = bytes ? bytes : satfeat_default_memory_limit();
    return SATFEAT_OK;
}

size_t satfeat_ctx_memory_limit(const satfeat_ctx *ctx)
{
    return satfeat_memory_budget(ctx);
}

/* detector_cuda_none.c - the CUDA backend of a build without CUDA: no context can be a CUDA
 * context there, so its creation is only reached through misuse and refuses; with no state
 * made, the façade calls nothing else of it. */
#include "detect/backend.h"

static satfeat_status refuse_create(const satfeat_fh_config *cfg, void **state)
{
    *state = NULL;
    return satfeat_fail(cfg->ctx, SATFEAT_ERR_UNSUPPORTED, "detect: built without CUDA");
}

const satfeat_fh_backend satfeat_fh_backend_cuda = {1, 1, refuse_create, NULL, NULL, NULL,
                                                    NULL, NULL, NULL, NULL, NULL};

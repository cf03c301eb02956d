/* ar_reference.c - see ar_reference.h. */
#include "ar_reference.h"
#include "test_util.h"

uint8_t *ar_ref;
int ar_rw, ar_rh;

int ar_reference_setup(void **state)
{
    (void)state;
    return satfeat_image_load_gray8(NULL, SATFEAT_TEST_DATA_DIR "/dune/frame001.png", &ar_ref,
                                    &ar_rw, &ar_rh) == SATFEAT_OK ? 0 : -1;
}

int ar_reference_teardown(void **state)
{
    (void)state;
    satfeat_free(ar_ref);
    ar_ref = NULL;
    return 0;
}

/* ar_reference.h - the AR tests' reference picture (data/dune/frame001.png), loaded once per
 * cmocka group by the group setup and freed by its teardown. */
#ifndef SATFEAT_TEST_AR_REFERENCE_H
#define SATFEAT_TEST_AR_REFERENCE_H

#include <stdint.h>

extern uint8_t *ar_ref; /* 8-bit gray pixels, rows packed */
extern int ar_rw, ar_rh; /* its width and height */

/** cmocka group setup: loads the reference (-1 when it cannot be read). */
int ar_reference_setup(void **state);

/** cmocka group teardown: frees it. */
int ar_reference_teardown(void **state);

#endif

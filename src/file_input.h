/* file_input.h - opening a file the library reads: never blocks on a FIFO or a device, and
 * refuses anything that is not a regular file with a message that says what it is. */
#ifndef SATFEAT_FILE_INPUT_H
#define SATFEAT_FILE_INPUT_H

#include "src/context_internal.h"

#include <stdio.h>

/* satfeat_file_open_input and satfeat_file_check_input are public (include/satfeat/core.h). */

/** Names the kind of file a stat mode describes ("FIFO", "directory", ...). */
const char *satfeat_file_kind(unsigned mode);

#endif

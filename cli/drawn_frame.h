/* drawn_frame.h - the PNG of one drawn frame of a sequence command (`satfeat track --draw`,
 * `satfeat ar --draw`): DIR/frameNNNN.png, through the guarded library writer. */
#ifndef SATFEAT_CLI_DRAWN_FRAME_H
#define SATFEAT_CLI_DRAWN_FRAME_H

#include "satfeat.h"

#include <stdint.h>

/**
 * Writes the RGB frame (width * 3 bytes a row) as DIR/frameNNNN.png, NNNN the 1-based frame
 * number k (at least four digits), its temporary file registered for removal on a signal
 * (out_file.h). Returns 1, or 0 after reporting the failure.
 */
int cli_write_drawn_frame(satfeat_ctx *ctx, const char *dir, int k, const uint8_t *rgb, int width,
                          int height);

#endif

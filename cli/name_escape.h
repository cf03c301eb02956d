/* name_escape.h - file names written into the CLI's text, CSV and JSON outputs: escaped so a
 * name can never start a line of its own, and JSON strings always valid UTF-8. */
#ifndef SATFEAT_CLI_NAME_ESCAPE_H
#define SATFEAT_CLI_NAME_ESCAPE_H

#include <stdio.h>

/**
 * Writes `name` C-style: backslash as \\, newline \n, carriage return \r, tab \t, every other
 * byte below 0x20 and 0x7f as \xHH (two lowercase hex digits); all other bytes as they are.
 * The result holds no line break; the escapes undo unambiguously.
 */
void cli_put_name_c(FILE *f, const char *name);

/**
 * Writes `name` as a JSON string with its quotes: '"' and '\' escaped, control bytes as
 * \u00XX, valid UTF-8 sequences as they are, and every byte that is not part of a valid UTF-8
 * sequence as \uDCXX with XX its value (0x80..0xff; Python's "surrogateescape" reading, so
 * os.fsencode(json.loads(...)) gives the original bytes back).
 */
void cli_put_name_json(FILE *f, const char *name);

/** 1 when `s` has a valid UTF-8 sequence of `*len` bytes at its start (*len set), else 0. */
int cli_utf8_sequence(const unsigned char *s, int *len);

#endif

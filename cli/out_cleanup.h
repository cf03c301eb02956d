/* out_cleanup.h - temporary output files removed when the CLI is interrupted: a small table of
 * names that a SIGINT/SIGTERM/SIGHUP handler unlinks (async-signal-safe) before re-raising. */
#ifndef SATFEAT_CLI_OUT_CLEANUP_H
#define SATFEAT_CLI_OUT_CLEANUP_H

/** Temporary names registered at once (the CLI has at most a few outputs open together). */
#define CLI_CLEANUP_SLOTS 16

/**
 * Registers `path` (copied) for removal if the process is killed by SIGINT, SIGTERM or SIGHUP
 * before cli_cleanup_remove; installs the handler on first use (a signal the process ignores
 * stays ignored). Returns the slot (>= 0), or -1 when the table is full or the name too long:
 * the write still goes on, only without the cleanup.
 */
int cli_cleanup_add(const char *path);

/** Forgets a slot from cli_cleanup_add (a negative slot is ignored). */
void cli_cleanup_remove(int slot);

#endif

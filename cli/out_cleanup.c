/* out_cleanup.c - see out_cleanup.h. The handler only calls unlink, sigaction and raise, which
 * POSIX lists as async-signal-safe, and reads names that were complete before their slot was
 * marked used. */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include "out_cleanup.h"

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static char cleanup_names[CLI_CLEANUP_SLOTS][PATH_MAX];
static volatile sig_atomic_t cleanup_used[CLI_CLEANUP_SLOTS];
static int cleanup_installed;

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void cleanup_handler(int sig)
{
    for (int k = 0; k < CLI_CLEANUP_SLOTS; k++)
        if (cleanup_used[k]) unlink(cleanup_names[k]);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl); /* memset is async-signal-safe since POSIX.1-2016 */
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered when the handler returns (the signal is blocked inside it) */
}

static void cleanup_install(void)
{
    cleanup_installed = 1;
    for (size_t k = 0; k < sizeof cleanup_signals / sizeof cleanup_signals[0]; k++) {
        struct sigaction old, sa;
        if (sigaction(cleanup_signals[k], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = cleanup_handler;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof cleanup_signals / sizeof cleanup_signals[0]; j++)
            sigaddset(&sa.sa_mask, cleanup_signals[j]); /* one handler run at a time */
        sigaction(cleanup_signals[k], &sa, NULL);
    }
}

int cli_cleanup_add(const char *path)
{
    const size_t len = strlen(path);
    if (len >= PATH_MAX) return -1;
    if (!cleanup_installed) cleanup_install();
    for (int k = 0; k < CLI_CLEANUP_SLOTS; k++) {
        if (cleanup_used[k]) continue;
        memcpy(cleanup_names[k], path, len + 1);
        atomic_signal_fence(memory_order_seq_cst); /* the name is whole before the flag is set */
        cleanup_used[k] = 1;
        return k;
    }
    return -1;
}

void cli_cleanup_remove(int slot)
{
    if (slot >= 0 && slot < CLI_CLEANUP_SLOTS) cleanup_used[slot] = 0;
}

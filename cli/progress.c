/* progress.c - see progress.h. */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "progress.h"
#include "commands.h"

#include <stdio.h>
#include <unistd.h>

void cli_progress_start(cli_progress *p, size_t total, int enabled)
{
    p->on = enabled && isatty(fileno(stderr));
    p->total = total;
    p->start_ms = p->last_ms = cli_now_ms();
    p->drawn = 0;
}

void cli_progress_update(cli_progress *p, size_t done)
{
    if (!p->on) return;
    const double now = cli_now_ms();
    const int known = p->total > 0; /* 0: a video whose frame count its container does not say */
    if ((!known || done < p->total) && now - p->last_ms < 200.0) return;
    p->last_ms = now;
    const double secs = (now - p->start_ms) / 1000.0;
    const double fps = secs > 0 ? (double)done / secs : 0.0;
    if (known)
        fprintf(stderr, "\r\033[Ksatfeat: frame %zu of %zu, %.1f frames/s", done, p->total, fps);
    else
        fprintf(stderr, "\r\033[Ksatfeat: frame %zu, %.1f frames/s", done, fps);
    if (known && done < p->total && fps > 0)
        fprintf(stderr, ", ETA %.0f s", (double)(p->total - done) / fps);
    fflush(stderr);
    p->drawn = 1;
}

void cli_progress_clear(cli_progress *p)
{
    if (!p->drawn) return;
    fputs("\r\033[K", stderr);
    p->drawn = 0;
}

void cli_progress_finish(cli_progress *p)
{
    if (!p->drawn) return;
    fputc('\n', stderr);
    p->drawn = 0;
}

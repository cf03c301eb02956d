/* thread_team.c - satfeat_thread_team_run (thread_team.h). */
#include "src/thread_team.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct team_member {
    void (*fn)(void *arg, size_t index);
    void *arg;
    size_t index;
    pthread_t thread;
    int started;
} team_member;

static void *member_run(void *p)
{
    team_member *m = p;
    m->fn(m->arg, m->index);
    return NULL;
}

void satfeat_thread_team_run(size_t n, void (*fn)(void *arg, size_t index), void *arg)
{
    if (n < 1) return;
    team_member *m = n > 1 ? calloc(n, sizeof *m) : NULL;
    for (size_t i = 1; m && i < n; i++) {
        m[i].fn = fn;
        m[i].arg = arg;
        m[i].index = i;
        m[i].started = pthread_create(&m[i].thread, NULL, member_run, &m[i]) == 0;
    }
    fn(arg, 0);
    for (size_t i = 1; m && i < n; i++)
        if (m[i].started) pthread_join(m[i].thread, NULL);
    free(m);
}

/* cli_suggest.c - "did you mean": the known option or command nearest to a mistyped one. The
 * options a command knows are read from its own --help text, so the list cannot drift from
 * what the help promises. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "commands.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Longest word compared; longer ones get no suggestion (and cost no time). */
#define SUGGEST_MAX_LEN 64

size_t cli_edit_distance(const char *a, const char *b)
{
    const size_t na = strlen(a), nb = strlen(b);
    if (na > SUGGEST_MAX_LEN || nb > SUGGEST_MAX_LEN) return (size_t)-1;
    /* three rows of the optimal-string-alignment table: two before, one being filled */
    size_t rows[3][SUGGEST_MAX_LEN + 1];
    size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= nb; j++) prev[j] = j;
    for (size_t i = 1; i <= na; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            const size_t cost = a[i - 1] != b[j - 1];
            size_t d = prev[j - 1] + cost;                     /* substitute or keep */
            if (prev[j] + 1 < d) d = prev[j] + 1;               /* delete from a */
            if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;         /* insert into a */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                before[j - 2] + 1 < d)
                d = before[j - 2] + 1;                          /* swap two neighbours */
            cur[j] = d;
        }
        size_t *t = before;
        before = prev;
        prev = cur;
        cur = t;
    }
    return prev[nb];
}

/* The largest distance still read as a typo of a word of `len` letters (dashes not counted):
 * one edit for short words, two from five letters on; none for one- or two-letter words. */
static size_t typo_budget(const char *word)
{
    size_t len = 0;
    for (const char *s = word; *s; s++) len += *s != '-';
    return len < 3 ? 0 : len < 5 ? 1 : 2;
}

/* Keeps `cand` in *best when it is nearer to `word` than what *best holds and within the budget. */
static void consider(const char *word, const char *cand, size_t cand_len, char *best,
                     size_t *best_d)
{
    char name[SUGGEST_MAX_LEN + 1];
    if (cand_len > SUGGEST_MAX_LEN) return;
    memcpy(name, cand, cand_len);
    name[cand_len] = '\0';
    const size_t d = cli_edit_distance(word, name);
    if (d == 0 || d > typo_budget(word) || d >= *best_d) return;
    *best_d = d;
    memcpy(best, name, cand_len + 1);
}

const char *cli_nearest_name(const char *word, const char *const *names, size_t n)
{
    static char best[SUGGEST_MAX_LEN + 1];
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) consider(word, names[i], strlen(names[i]), best, &best_d);
    return best_d == (size_t)-1 ? NULL : best;
}

/* 1 when text[0..len) is an option name as the help texts write them: -x or --word[-word...]. */
static int is_option_token(const char *t, size_t len)
{
    if (len == 2) return t[0] == '-' && isalpha((unsigned char)t[1]);
    return len > 3 && t[0] == '-' && t[1] == '-' && isalpha((unsigned char)t[2]) &&
           t[len - 1] != '-';
}

/* The option of `help`'s text nearest to `word` (static buffer), or NULL. */
static const char *nearest_option(const char *word, void (*help)(FILE *))
{
    static char best[SUGGEST_MAX_LEN + 1];
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    if (!mem) return NULL;
    help(mem);
    if (fclose(mem) != 0 || !text) {
        free(text);
        return NULL;
    }
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < size;) {
        const int starts = text[i] == '-' && (i == 0 || !(isalnum((unsigned char)text[i - 1]) ||
                                                          text[i - 1] == '-'));
        if (!starts) {
            i++;
            continue;
        }
        size_t len = 0;
        while (i + len < size &&
               (isalnum((unsigned char)text[i + len]) || text[i + len] == '-'))
            len++;
        if (is_option_token(text + i, len)) consider(word, text + i, len, best, &best_d);
        i += len;
    }
    free(text);
    return best_d == (size_t)-1 ? NULL : best;
}

void cli_unknown_option(const char *who, const char *arg, void (*help)(FILE *))
{
    char word[SUGGEST_MAX_LEN + 1];
    const char *eq = strchr(arg, '=');
    const size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const char *near = NULL;
    if (len <= SUGGEST_MAX_LEN) {
        memcpy(word, arg, len);
        word[len] = '\0';
        near = nearest_option(word, help);
    }
    fprintf(stderr, "satfeat: %sunknown option '%s'", who, arg);
    if (near) fprintf(stderr, "; did you mean %s?", near);
    fputc('\n', stderr);
}

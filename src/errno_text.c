/* errno_text.c - errno values as text through strerror_r, never the thread-unsafe strerror. */
#define _POSIX_C_SOURCE 200809L /* strerror_r */
#include "src/errno_text.h"

#include <string.h>

/* XSI strerror_r: returns 0 and fills `buf`, or an error number. */
static const char *from_xsi(int rc, char *buf)
{
    return rc == 0 && buf[0] != '\0' ? buf : "unknown error";
}

/* GNU strerror_r: returns the text, which may or may not be `buf`. */
static const char *from_gnu(const char *text, char *buf)
{
    (void)buf;
    return text && text[0] != '\0' ? text : "unknown error";
}

const char *satfeat_errno_text(int err, char *buf, size_t size)
{
    if (err == 0 || !buf || size == 0) return "unknown error";
    buf[0] = '\0';
    /* The C library declares one of the two forms; _Generic picks its reader at compile time. */
    return _Generic(strerror_r(err, buf, size), int: from_xsi, char *: from_gnu)(
        strerror_r(err, buf, size), buf);
}

/* bad.c - include_check fixture: an example that includes a private header. */
#include "context_internal.h"

/* bad.c - include_check fixture: a CLI file that reaches into the library. */
#include "satfeat.h"
#include "detector_internal.h"

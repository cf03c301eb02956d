/* bad.c - include_check fixture: match/ reaching into the detector's internals. */
#include "satfeat.h"
#include "context_internal.h"
#include "detector_internal.h"

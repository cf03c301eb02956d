/* bad.c - include_check fixture: match/ reaching into the detector's internals. */
#include "satfeat.h"
#include "src/context_internal.h"
#include "detect/detector_internal.h"

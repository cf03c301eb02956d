/* bad.c - include_check fixture: detect/ including its seam of sat/ (allowed), a SAT internal
 * and a header by a bare name. */
#include "sat/sat.h"
#include "sat/sat_layout.h"
#include "hd.h"

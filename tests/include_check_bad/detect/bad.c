/* bad.c - include_check fixture: detect/ including a SAT internal. */
#include "sat.h"
#include "sat_layout.h"

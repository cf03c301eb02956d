/* sat.c - include_check fixture: a module that keeps to its rules. */
#include "satfeat.h"
#include "sat/sat_layout.h"
#include "src/hd.h"

/* sat_layout.h - include_check fixture: a SAT internal. */

/* sat.h - include_check fixture: the seam. */

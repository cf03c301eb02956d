/* context_internal.h - include_check fixture: a src/ header (allowed below the public API). */

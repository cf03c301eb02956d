satfeat_add_module(detect MAY_INCLUDE src sat/sat.h
  C bad.c)

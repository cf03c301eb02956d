satfeat_add_module(sat MAY_INCLUDE src
  C sat.c)

satfeat_add_module(match MAY_INCLUDE src # the comment names detect, which is not a rule
  C bad.c)

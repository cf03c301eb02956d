# Context, status, CPU SAT and box helpers.
satfeat_add_test(test_context test_context.c)
satfeat_add_test(test_sat_cpu test_sat_cpu.c)
satfeat_add_test(test_box test_box.c)

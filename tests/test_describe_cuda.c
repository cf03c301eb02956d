/* placeholder */
#include "test_util.h"
int main(void) { return test_main_without_cuda(); }

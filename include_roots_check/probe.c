#include "detect/detector_internal.h"
int satfeat_probe_unused;

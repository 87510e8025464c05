#include "measure/measure.h"

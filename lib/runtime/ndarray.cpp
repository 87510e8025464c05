#include "runtime/ndarray.h"

#include "graph/convert.h"

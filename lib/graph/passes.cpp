#include "graph/passes.h"

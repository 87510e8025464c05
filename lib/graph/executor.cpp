#include "graph/executor.h"

#include "graph/partition.h"

#include "graph/import.h"

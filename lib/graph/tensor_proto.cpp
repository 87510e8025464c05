#include "graph/tensor_proto.h"

#include "te/tensor.h"

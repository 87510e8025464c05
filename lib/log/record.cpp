#include "log/record.h"

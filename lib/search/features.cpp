#include "search/features.h"

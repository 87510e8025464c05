#include "schedule/state.h"

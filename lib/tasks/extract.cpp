#include "tasks/extract.h"

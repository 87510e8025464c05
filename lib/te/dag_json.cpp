#include "te/dag_json.h"

// Program features for the cost model: one row per buffer store of a lowered
// program. Declared by the cost-model work in progress.
#pragma once

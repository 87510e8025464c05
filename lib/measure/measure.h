// Measurement of candidate programs in isolated worker processes. Declared by
// the measurement work in progress.
#pragma once

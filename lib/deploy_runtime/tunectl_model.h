/* A model compiled by `tunectl compile MODEL --log LOG -o DIR`: the C API of
 * DIR/libMODEL.so. The library holds the model's tuned kernels, its graph
 * and a small runtime (a thread pool); DIR/MODEL.weights holds its weights,
 * prepacked as the kernels read them. Nothing else is needed at run time: no
 * LLVM, no ONNX, no protobuf.
 *
 *   tunectl_model* m = tunectl_model_create("DIR");
 *   if (!m) { fprintf(stderr, "%s\n", tunectl_model_last_error()); return 1; }
 *   const void* inputs[] = {image};      // one per input, row-major, caller-owned
 *   void* outputs[] = {scores};          // one per output, tunectl_model_output_bytes each
 *   if (tunectl_model_run(m, inputs, outputs) != 0) ...
 *   tunectl_model_destroy(m);
 *
 * Errors: a function that fails returns NULL or -1 and sets the message that
 * tunectl_model_last_error() returns on the same thread; nothing throws.
 * Threads: calls on one model are serialized by a lock inside it; create one
 * model per thread to run several at once (each has its own intermediate
 * buffers; parallel loops of all models share one thread pool). A library is
 * linked for one CPU: create() refuses to run on a CPU that lacks an
 * instruction-set feature its kernels use. Two compiled models in one
 * program: load them with dlopen (RTLD_LOCAL), since both export these names. */
#ifndef TUNECTL_MODEL_H
#define TUNECTL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tunectl_model tunectl_model;

/* Loads the model whose weights file is in `dir` (the folder tunectl
 * compile wrote); NULL on failure. */
tunectl_model* tunectl_model_create(const char* dir);
void tunectl_model_destroy(tunectl_model* model);

/* The ONNX model's file name without extension, and the target it was
 * compiled for ("llvm -mcpu=znver4"). */
const char* tunectl_model_name(const tunectl_model* model);
const char* tunectl_model_target(const tunectl_model* model);

int tunectl_model_num_inputs(const tunectl_model* model);
int tunectl_model_num_outputs(const tunectl_model* model);
/* Input or output i: its name, dtype ("float32", "int64", "uint8", "bool",
 * ...), rank, dimensions and size in bytes. NULL, -1 or 0 for a bad index. */
const char* tunectl_model_input_name(const tunectl_model* model, int i);
const char* tunectl_model_input_dtype(const tunectl_model* model, int i);
int tunectl_model_input_rank(const tunectl_model* model, int i);
const int64_t* tunectl_model_input_shape(const tunectl_model* model, int i);
size_t tunectl_model_input_bytes(const tunectl_model* model, int i);
const char* tunectl_model_output_name(const tunectl_model* model, int i);
const char* tunectl_model_output_dtype(const tunectl_model* model, int i);
int tunectl_model_output_rank(const tunectl_model* model, int i);
const int64_t* tunectl_model_output_shape(const tunectl_model* model, int i);
size_t tunectl_model_output_bytes(const tunectl_model* model, int i);

/* Runs the model once: inputs[i] points at input i's data, outputs[i] at
 * room for output i (both row-major, in their dtype, owned by the caller;
 * the inputs are only read). An input at a 64-byte aligned address is read
 * in place; any other is copied to an aligned buffer first. 0 on success,
 * -1 on failure. */
int tunectl_model_run(tunectl_model* model, const void* const* inputs, void* const* outputs);

/* Worker threads of the parallel loops (all models of the process share
 * them); default TUNECTL_NUM_THREADS, else the cores the process may use.
 * n <= 0 restores the default. */
void tunectl_model_set_num_threads(int n);
int tunectl_model_num_threads(void);

/* The message of the last failed call on this thread; "" when none failed. */
const char* tunectl_model_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TUNECTL_MODEL_H */

/* A compiled model run from several threads at once (tunectl_model.h):
 * THREADS threads each run their own model instance, and THREADS more share
 * one instance, ROUNDS runs each; every output must equal the output of one
 * run on one thread, byte for byte. Usage: threads MODEL_DIR THREADS ROUNDS
 * (inputs: a fixed pseudo-random pattern of each input's bytes, kept small
 * for floats). Built by test/cli/compile_test.sh against the library alone. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static const char* g_dir;
static tunectl_model* g_shared;
static void** g_inputs;
static void** g_expected;
static int g_rounds;

static int run_and_compare(tunectl_model* m) {
  int n = tunectl_model_num_outputs(m), bad = 0;
  void** outputs = calloc((size_t)n, sizeof(void*));
  for (int i = 0; i < n; ++i) outputs[i] = malloc(tunectl_model_output_bytes(m, i) + 1);
  for (int r = 0; r < g_rounds && !bad; ++r) {
    if (tunectl_model_run(m, (const void* const*)g_inputs, outputs) != 0) {
      fprintf(stderr, "run failed: %s\n", tunectl_model_last_error());
      bad = 1;
    }
    for (int i = 0; i < n && !bad; ++i)
      if (memcmp(outputs[i], g_expected[i], tunectl_model_output_bytes(m, i)) != 0) {
        fprintf(stderr, "output %s differs from the single-threaded run\n", tunectl_model_output_name(m, i));
        bad = 1;
      }
  }
  for (int i = 0; i < n; ++i) free(outputs[i]);
  free(outputs);
  return bad;
}

static void* own_instance(void* arg) {
  (void)arg;
  tunectl_model* m = tunectl_model_create(g_dir);
  if (!m) {
    fprintf(stderr, "%s\n", tunectl_model_last_error());
    return (void*)1;
  }
  int bad = run_and_compare(m);
  tunectl_model_destroy(m);
  return (void*)(intptr_t)bad;
}

static void* shared_instance(void* arg) {
  (void)arg;
  return (void*)(intptr_t)run_and_compare(g_shared);
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  g_dir = argv[1];
  int threads = atoi(argv[2]);
  g_rounds = atoi(argv[3]);
  g_shared = tunectl_model_create(g_dir);
  if (!g_shared) {
    fprintf(stderr, "%s\n", tunectl_model_last_error());
    return 1;
  }
  int ni = tunectl_model_num_inputs(g_shared), no = tunectl_model_num_outputs(g_shared);
  g_inputs = calloc((size_t)ni + 1, sizeof(void*));
  g_expected = calloc((size_t)no + 1, sizeof(void*));
  uint32_t state = 12345;
  for (int i = 0; i < ni; ++i) {
    size_t bytes = tunectl_model_input_bytes(g_shared, i);
    unsigned char* p = malloc(bytes + 1);
    int is_float = strcmp(tunectl_model_input_dtype(g_shared, i), "float32") == 0;
    for (size_t b = 0; b < bytes; ++b) {
      state = state * 1103515245u + 12345u;
      /* floats: a small exponent byte keeps values in a sane range */
      p[b] = is_float && b % 4 == 3 ? (unsigned char)(0x3c + (state >> 30)) : (unsigned char)(state >> 24);
    }
    g_inputs[i] = p;
  }
  for (int i = 0; i < no; ++i) g_expected[i] = malloc(tunectl_model_output_bytes(g_shared, i) + 1);
  if (tunectl_model_run(g_shared, (const void* const*)g_inputs, g_expected) != 0) {
    fprintf(stderr, "%s\n", tunectl_model_last_error());
    return 1;
  }
  pthread_t* ids = calloc((size_t)threads * 2, sizeof(pthread_t));
  for (int t = 0; t < threads; ++t) {
    pthread_create(&ids[t], NULL, own_instance, NULL);
    pthread_create(&ids[threads + t], NULL, shared_instance, NULL);
  }
  int bad = 0;
  for (int t = 0; t < 2 * threads; ++t) {
    void* r;
    pthread_join(ids[t], &r);
    bad |= r != NULL;
  }
  printf("%d threads with their own model and %d sharing one, %d runs each: %s\n", threads, threads, g_rounds,
         bad ? "MISMATCH" : "all outputs equal the single-threaded run");
  tunectl_model_destroy(g_shared);
  return bad;
}

/* example.c: runs the compiled model @MODEL@ on NumPy .npy inputs and writes
 * its outputs as .npy files. Written by `tunectl compile`; build and run:
 *
 *   cc -O2 example.c -I. -L. -l@MODEL@ -Wl,-rpath,'$ORIGIN' -o example
 *   ./example . OUT_DIR INPUT_0.npy ...     (one file per input, in order)
 *   ./example . OUT_DIR IN_DIR              (IN_DIR/<input name>.npy each, as
 *                                            tunectl run --save-inputs writes them)
 *
 * Each input file must hold exactly the input's bytes (little-endian, C
 * order, the input's dtype and shape). Outputs go to OUT_DIR/<name>.npy
 * ('/', '\' and ':' in names become '_'). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "@MODEL@.h"

/* The data of a version 1-3 .npy file of exactly `bytes` data bytes. */
static void* read_npy(const char* path, size_t bytes) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return NULL;
  }
  unsigned char prefix[12];
  size_t got = fread(prefix, 1, sizeof prefix, f);
  int version = got >= 10 && memcmp(prefix, "\x93NUMPY", 6) == 0 ? prefix[6] : 0;
  size_t header = version == 1 ? 10 + (size_t)(prefix[8] | prefix[9] << 8)
                  : version > 1 && got == 12
                      ? 12 + (prefix[8] | prefix[9] << 8 | (size_t)prefix[10] << 16 | (size_t)prefix[11] << 24)
                      : 0;
  void* data = header ? malloc(bytes ? bytes : 1) : NULL;
  int ok = data && fseek(f, 0, SEEK_END) == 0 && (size_t)ftell(f) == header + bytes &&
           fseek(f, (long)header, SEEK_SET) == 0 && fread(data, 1, bytes, f) == bytes;
  fclose(f);
  if (!ok) {
    fprintf(stderr, "%s is not a .npy file of %zu data bytes\n", path, bytes);
    free(data);
    return NULL;
  }
  return data;
}

static const char* npy_descr(const char* dtype) {
  static const char* const table[][2] = {
      {"float32", "<f4"}, {"float64", "<f8"}, {"float16", "<f2"}, {"int8", "|i1"},  {"uint8", "|u1"},
      {"int16", "<i2"},   {"uint16", "<u2"},  {"int32", "<i4"},   {"uint32", "<u4"}, {"int64", "<i8"},
      {"uint64", "<u8"},  {"bool", "|b1"}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
    if (strcmp(dtype, table[i][0]) == 0) return table[i][1];
  return "|V1";
}

static int write_npy(const char* path, const char* dtype, const int64_t* shape, int rank, const void* data,
                     size_t bytes) {
  char header[512];
  int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (", npy_descr(dtype));
  for (int d = 0; d < rank; ++d) n += snprintf(header + n, sizeof header - n, "%lld, ", (long long)shape[d]);
  n -= rank == 1 ? 1 : rank > 1 ? 2 : 0; /* (5,) and (2, 3) as NumPy writes them */
  n += snprintf(header + n, sizeof header - n, "), }");
  while ((10 + n + 1) % 64 != 0) header[n++] = ' ';
  header[n++] = '\n';
  FILE* f = fopen(path, "wb");
  if (!f) return -1;
  unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff), (unsigned char)(n >> 8)};
  int ok = fwrite(prefix, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n &&
           fwrite(data, 1, bytes, f) == bytes;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* DIR/<name>.npy with the characters a file name cannot hold replaced. */
static void npy_path(char* path, size_t size, const char* dir, const char* name) {
  int n = snprintf(path, size, "%s/", dir);
  for (const char* c = name; *c && (size_t)n + 5 < size; ++c) path[n++] = *c == '/' || *c == '\\' || *c == ':' ? '_' : *c;
  snprintf(path + n, size - (size_t)n, ".npy");
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL_DIR OUT_DIR INPUT.npy...\n", argv[0]);
    return 1;
  }
  tunectl_model* model = tunectl_model_create(argv[1]);
  if (!model) {
    fprintf(stderr, "%s\n", tunectl_model_last_error());
    return 1;
  }
  int num_inputs = tunectl_model_num_inputs(model), num_outputs = tunectl_model_num_outputs(model);
  struct stat st;
  int from_dir = argc == 4 && num_inputs > 0 && stat(argv[3], &st) == 0 && S_ISDIR(st.st_mode);
  if (argc != 3 + num_inputs && !from_dir) {
    fprintf(stderr, "%s takes %d inputs:", tunectl_model_name(model), num_inputs);
    for (int i = 0; i < num_inputs; ++i) fprintf(stderr, " %s", tunectl_model_input_name(model, i));
    fprintf(stderr, "\n");
    return 1;
  }
  const void** inputs = calloc((size_t)num_inputs + 1, sizeof(void*));
  void** outputs = calloc((size_t)num_outputs + 1, sizeof(void*));
  int status = 0;
  for (int i = 0; i < num_inputs && status == 0; ++i) {
    char path[4096];
    if (from_dir) npy_path(path, sizeof path, argv[3], tunectl_model_input_name(model, i));
    else snprintf(path, sizeof path, "%s", argv[3 + i]);
    if (!(inputs[i] = read_npy(path, tunectl_model_input_bytes(model, i)))) status = 1;
  }
  for (int i = 0; i < num_outputs && status == 0; ++i) outputs[i] = malloc(tunectl_model_output_bytes(model, i) + 1);
  if (status == 0 && tunectl_model_run(model, inputs, outputs) != 0) {
    fprintf(stderr, "%s\n", tunectl_model_last_error());
    status = 1;
  }
  for (int i = 0; i < num_outputs && status == 0; ++i) {
    char path[4096];
    npy_path(path, sizeof path, argv[2], tunectl_model_output_name(model, i));
    if (write_npy(path, tunectl_model_output_dtype(model, i), tunectl_model_output_shape(model, i),
                  tunectl_model_output_rank(model, i), outputs[i], tunectl_model_output_bytes(model, i)) != 0) {
      fprintf(stderr, "cannot write %s\n", path);
      status = 1;
    } else {
      printf("%s: %s\n", tunectl_model_output_name(model, i), path);
    }
  }
  for (int i = 0; i < num_inputs; ++i) free((void*)inputs[i]);
  for (int i = 0; i < num_outputs; ++i) free(outputs[i]);
  free(inputs);
  free(outputs);
  tunectl_model_destroy(model);
  return status;
}

// `tunectl bench --target cuda` without a model: the bench suite on the
// GPU. Each one-operator model of models/bench/ that has a GPU workload
// (the 4096^3 SGEMM, ResNet-50's convolutions with bias and ReLU, BERT's
// dense layer) gets its task's best kernel from the CUDA records of the
// tuning logs (or with --untuned its default GPU schedule), checked
// against the vendor library on the same seeded inputs (a wrong one is
// reported, its row marked, the others still run, and the command fails)
// and timed on the device next to it: cuBLAS SGEMM in pedantic FP32, cuDNN's fastest FMA
// convolution. The vendor rows time the matmul or convolution alone;
// tunectl's kernels also add the bias and apply the ReLU.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "baseline/cublas_sgemm.h"
#include "baseline/cudnn_conv2d.h"
#include "check/reference_check.h"
#include "cmd/bench_suite.h"
#include "ir/error.h"

namespace tunectl::cmd {

namespace {

// Runs the vendor's operator on the task's inputs (placeholders in DAG
// order) into `out` as the task computes it, and times the vendor's part.
struct Vendor {
  std::function<void(const std::vector<runtime::NDArray>& inputs, runtime::NDArray& out)> run;
  std::function<runtime::Timing(const runtime::TimingOptions&)> time;
};

struct GpuSuiteEntry {
  std::string file;  // under the suite folder
  std::function<Vendor()> make_vendor;
};

// out[m][n] = a[m][k] x b[k][n] (+ bias[n]).
Vendor matmul_vendor(int64_t m, int64_t n, int64_t k, bool bias) {
  auto p = std::make_shared<baseline::CublasSgemm>(m, n, k);
  return {[p, n, bias](const std::vector<runtime::NDArray>& in, runtime::NDArray& out) {
            p->run(in[0].data<float>(), in[1].data<float>(), out.data<float>());
            if (!bias) return;
            float* y = out.data<float>();
            for (int64_t i = 0; i < out.num_elements(); ++i) y[i] += in[2].data<float>()[i % n];
          },
          [p](const runtime::TimingOptions& t) { return p->time(t); }};
}

// relu(conv(x, w) + bias), padding r / 2 (models/make_bench_models.cpp).
Vendor conv_vendor(int64_t c, int64_t k, int64_t r, int64_t size, int64_t stride = 1) {
  const baseline::Conv2dShape s{1, c, size, size, k, r, r, stride, r / 2};
  auto p = std::make_shared<baseline::CudnnConv2d>(s);
  const int64_t plane = s.out_h() * s.out_w();
  return {[p, plane](const std::vector<runtime::NDArray>& in, runtime::NDArray& out) {
            p->run(in[0].data<float>(), in[1].data<float>(), out.data<float>());
            float* y = out.data<float>();
            for (int64_t i = 0; i < out.num_elements(); ++i) y[i] = std::max(0.0f, y[i] + in[2].data<float>()[i / plane]);
          },
          [p](const runtime::TimingOptions& t) { return p->time(t); }};
}

std::vector<GpuSuiteEntry> gpu_suite_entries() {
  return {
      {"gemm_4096.onnx", [] { return matmul_vendor(4096, 4096, 4096, false); }},
      {"conv3x3_resnet.onnx", [] { return conv_vendor(64, 64, 3, 56); }},
      {"conv1x1_resnet.onnx", [] { return conv_vendor(64, 256, 1, 56); }},
      {"conv7x7_stem.onnx", [] { return conv_vendor(3, 64, 7, 224, 2); }},
      {"conv3x3_s2_resnet.onnx", [] { return conv_vendor(128, 128, 3, 56, 2); }},
      {"conv1x1_s2_resnet.onnx", [] { return conv_vendor(256, 512, 1, 56, 2); }},
      {"dense_bert.onnx", [] { return matmul_vendor(128, 3072, 768, true); }},
  };
}

SuiteRow bench_gpu_entry(const GpuSuiteEntry& entry, const std::string& path, const TuningLogs& logs,
                         const backend::Backend& backend, const BenchOptions& o) {
  tasks::Task task = single_task(path);
  SuiteRow row{entry.file.substr(0, entry.file.rfind('.')), "no tuning log", 0, 0, task.flops, 0};
  std::vector<runtime::NDArray> inputs = check::check_inputs(*task.dag, o.seed);
  const te::Tensor& output = task.dag->outputs().at(0);
  std::vector<runtime::NDArray> expected;
  expected.emplace_back(output->dtype(), output->shape());
  Vendor vendor = entry.make_vendor();
  vendor.run(inputs, expected[0]);
  runtime::TimingOptions timing;
  timing.repeats = o.repeats;
  std::unique_ptr<runtime::Kernel> kernel = suite_row_kernel(task, logs, backend, o, row);
  if (kernel) {
    std::vector<runtime::NDArray> outputs = check::poisoned_outputs(*task.dag);
    std::vector<void*> args;
    for (runtime::NDArray& a : inputs) args.push_back(a.raw());
    args.push_back(outputs[0].raw());
    std::vector<runtime::NDArray> packed;
    std::vector<void*> raw = kernel->pack_inputs(args, packed);
    kernel->run(raw.data());
    check::CheckResult cmp = check::compare_outputs(*task.dag, outputs, expected);
    if (!cmp.ok) {
      // Which one is wrong: the reference evaluator decides.
      const check::CheckResult ours =
          check::compare_outputs(*task.dag, outputs, check::reference_outputs(*task.dag, inputs, o.seed));
      std::fprintf(stderr, "error: bench: the %s kernel of %s disagrees with the vendor library: %s%s\n",
                   row.note.c_str(), task.name.c_str(), cmp.message.c_str(),
                   ours.ok ? " (and agrees with the reference evaluator)"
                           : (" (and with the reference evaluator: " + ours.message + ")").c_str());
      row.note = "WRONG ANSWER";
    } else {
      row.tunectl_s = kernel->time(raw.data(), timing).median();
    }
  }
  row.vendor_s = vendor.time(timing).median();
  return row;
}

}  // namespace

void run_bench_suite_cuda(const BenchOptions& o, const TuningLogs& logs, const backend::Backend& backend) {
  std::printf("bench suite: %s on %s against cuBLAS / cuDNN (FP32, no tensor cores), median of %d repeats "
              "(L2 flushed)\n",
              o.suite.c_str(), backend.target().gpu.device.c_str(), o.repeats);
  std::printf("tuning logs: %s (%zu files, %zu tuned workloads for %s)\n", o.logs.c_str(), logs.files,
              logs.best.size(), logs.target.c_str());
  std::vector<SuiteRow> rows;
  for (const GpuSuiteEntry& entry : gpu_suite_entries()) {
    rows.push_back(bench_gpu_entry(entry, o.suite + "/" + entry.file, logs, backend, o));
    std::fflush(stdout);
  }
  print_suite_rows(rows, "vendor");
  std::printf("vendor: cuBLAS SGEMM for the matmuls, cuDNN for the convolutions (the convolution alone; "
              "tunectl's kernel adds the bias and the ReLU)\n");
  for (const SuiteRow& r : rows)
    user_check(r.note != "WRONG ANSWER", "bench: the kernel of ", r.workload, " computes a wrong answer (above)");
}

}  // namespace tunectl::cmd

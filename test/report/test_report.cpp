// The tuning report (report.h): its figures from a log, the same figures
// read back from the page's data attributes, and the page rendered by a real
// browser (headless Chromium, which scripts/install-deps.sh installs) into a
// PNG of the window's size that is not blank and shows the latency curve's
// colour.
#include <algorithm>
#include <catch2/catch.hpp>

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "log/log_file.h"
#include "ops/registry.h"
#include "report/report.h"
#include "te/dag_json.h"

namespace tunectl::report {
namespace {

log::Record record_of(const te::ComputeDAG& dag, const std::string& name, std::vector<double> costs, int64_t time,
                      log::MeasureError error = log::MeasureError::None) {
  log::Record r;
  r.task = {dag.workload_key(), name, "llvm -mcpu=znver4", te::dag_to_json(dag)};
  r.result.costs = std::move(costs);
  r.result.error = error;
  r.result.timestamp = time;
  return r;
}

std::vector<log::Record> two_task_log() {
  const te::ComputeDAG mm = ops::make_op_dag("matmul", {{"M", 64}, {"N", 64}, {"K", 64}});
  const te::ComputeDAG relu = ops::make_op_dag("relu", {{"shape", {64, 64}}});
  return {
      record_of(mm, "matmul_0", {4e-3}, 100),                                  // 1: relu has none yet
      record_of(relu, "relu_1", {}, 101, log::MeasureError::CompileHostError),  // 2
      record_of(relu, "relu_1", {1e-3}, 102),                                  // 3: latency 2*4 + 1 = 9 ms
      record_of(mm, "matmul_0", {5e-3}, 110),                                  // 4: no better
      record_of(mm, "matmul_0", {2e-3}, 130),                                  // 5: 2*2 + 1 = 5 ms
      record_of(relu, "relu_1", {}, 131, log::MeasureError::WrongAnswer),      // 6
  };
}

// The (data-x, data-y) of every point of series `name` in the page.
std::vector<Point> points_of(const std::string& html, const std::string& name) {
  const size_t begin = html.find("<g data-series=\"" + name + "\">");
  REQUIRE(begin != std::string::npos);
  const std::string group = html.substr(begin, html.find("</g>", begin) - begin);
  std::vector<Point> points;
  const std::regex point("<circle [^>]*data-x=\"([^\"]+)\" data-y=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(group.begin(), group.end(), point); it != std::sregex_iterator(); ++it)
    points.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  return points;
}

void check_points(const std::vector<Point>& actual, const std::vector<Point>& expected) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    CHECK(actual[i].x == Approx(expected[i].x));
    CHECK(actual[i].y == Approx(expected[i].y));
  }
}

TEST_CASE("report: the figures of a log, and the same figures read back from the page", "[unit]") {
  const std::vector<log::Record> records = two_task_log();
  const std::string mm = records[0].task.workload_key, relu = records[1].task.workload_key;
  // With a model: matmul runs twice per model run.
  const ReportData d = report_data(records, {{mm, "matmul_0", 2}, {relu, "relu_1", 1}});
  CHECK(d.records == 6);
  check_points(d.latency_by_trial, {{3, 9}, {5, 5}, {6, 5}});
  check_points(d.latency_by_time, {{2, 9}, {30, 5}});
  check_points(d.task_gflops.at(mm), {{1, 2.0 * 64 * 64 * 64 / 4e-3 / 1e9}, {3, 2.0 * 64 * 64 * 64 / 2e-3 / 1e9}});
  CHECK(d.task_errors.at(relu) == 2);
  CHECK(d.error_kinds == std::map<std::string, int>{{"compile_host_error", 1}, {"wrong_answer", 1}});

  const std::string html = report_html(d, "test");
  check_points(points_of(html, "latency-trials"), d.latency_by_trial);
  check_points(points_of(html, "latency-time"), d.latency_by_time);
  check_points(points_of(html, "gflops-" + mm), d.task_gflops.at(mm));
  CHECK(html.find("data-x=\"matmul_0\" data-y=\"80\"") != std::string::npos);  // 2*2 of 5 ms
  CHECK(html.find("data-x=\"wrong_answer\" data-y=\"1\"") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);  // self-contained, nothing runs or loads
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));

  SECTION("without a model: every task of the log once") {
    const ReportData once = report_data(records, {});
    REQUIRE(once.tasks.size() == 2);
    check_points(once.latency_by_trial, {{3, 5}, {5, 3}, {6, 3}});
  }
}

// The RGB pixels of a PNG as Chromium writes it (8-bit RGB or RGBA, not
// interlaced), decoded with zlib; its width and height.
struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
};

uint32_t be32(const std::string& s, size_t at) {
  return uint32_t(uint8_t(s[at])) << 24 | uint32_t(uint8_t(s[at + 1])) << 16 | uint32_t(uint8_t(s[at + 2])) << 8 |
         uint8_t(s[at + 3]);
}

Image decode_png(const std::string& png) {
  REQUIRE(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  Image img;
  int channels = 0;
  std::string idat;
  for (size_t at = 8; at + 8 <= png.size();) {
    const uint32_t len = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (type == "IHDR") {
      img.width = int(be32(png, at + 8));
      img.height = int(be32(png, at + 12));
      REQUIRE(uint8_t(png[at + 16]) == 8);
      channels = uint8_t(png[at + 17]) == 6 ? 4 : 3;
      REQUIRE(uint8_t(png[at + 20]) == 0);  // not interlaced
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, len);
    }
    at += 12 + len;
  }
  const size_t stride = size_t(img.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf raw_size = raw.size();
  REQUIRE(uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) == Z_OK);
  std::vector<uint8_t> prev(stride, 0), row(stride);
  for (int y = 0; y < img.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= size_t(channels) ? row[i - channels] : 0, b = prev[i],
                c = i >= size_t(channels) ? prev[i - channels] : 0;
      int pred = 0;
      if (filter == 1) pred = a;
      if (filter == 2) pred = b;
      if (filter == 3) pred = (a + b) / 2;
      if (filter == 4) {
        const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      row[i] = uint8_t(in[i] + pred);
    }
    for (int x = 0; x < img.width; ++x)
      for (int k = 0; k < 3; ++k) img.rgb.push_back(row[x * channels + k]);
    prev = row;
  }
  return img;
}

TEST_CASE("report: rendered by headless Chromium, the page shows its plots", "[slow]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tunectl_report_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string log_path = std::string(TUNECTL_SOURCE_DIR) + "/tuning_logs/small_cnn.llvm.json";
  const std::vector<log::Record> records = log::read_log(log_path).records;
  // The NCHW tasks its first 300 records tuned: over all of the log's tasks
  // the curve would start only at the first record of the last one added.
  std::vector<ReportTask> nchw;
  for (size_t i = 0; i < 300 && i < records.size(); ++i)
    if (std::none_of(nchw.begin(), nchw.end(),
                     [&](const ReportTask& t) { return t.workload_key == records[i].task.workload_key; }))
      nchw.push_back({records[i].task.workload_key, records[i].task.name, 1});
  REQUIRE(nchw.size() == 7);
  const ReportData d = report_data(records, nchw);
  REQUIRE(d.latency_by_trial.size() > 3);
  {
    std::ofstream out(dir / "report.html");
    out << report_html(d, "small_cnn");
  }
  const std::string command = "chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
                              "--hide-scrollbars --window-size=1000,1400 --screenshot=" +
                              (dir / "report.png").string() + " file://" + (dir / "report.html").string() +
                              " >" + (dir / "chromium.log").string() + " 2>&1";
  INFO("needs Debian's chromium (scripts/install-deps.sh installs it): " << command);
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream in(dir / "report.png", std::ios::binary);
  const Image img = decode_png(std::string(std::istreambuf_iterator<char>(in), {}));
  CHECK(img.width == 1000);
  CHECK(img.height == 1400);
  size_t non_white = 0, curve = 0;
  for (size_t p = 0; p + 2 < img.rgb.size(); p += 3) {
    const int r = img.rgb[p], g = img.rgb[p + 1], b = img.rgb[p + 2];
    non_white += r < 240 || g < 240 || b < 240;
    // The latency curve's colour, #1f77b4 (anti-aliasing blends its edges).
    curve += std::abs(r - 0x1f) < 24 && std::abs(g - 0x77) < 24 && std::abs(b - 0xb4) < 24;
  }
  const double pixels = double(img.width) * img.height;
  INFO(non_white << " non-white pixels, " << curve << " of the curve's colour");
  CHECK(non_white > 0.02 * pixels);
  CHECK(curve > 500);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tunectl::report

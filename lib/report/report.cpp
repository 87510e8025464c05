#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "schedule/steps.h"
#include "te/dag_json.h"

namespace tunectl::report {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A "nice" tick step for [0, max] in about five steps.
double tick_step(double max) {
  if (!(max > 0)) return 1;
  const double raw = max / 5, magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

struct Series {
  std::string name;  // data-series
  std::string label;
  std::vector<Point> points;
};

// A line chart of step-shaped series (values hold until the next point),
// from 0 on both axes.
std::string line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                       const std::vector<Series>& series) {
  constexpr double W = 900, H = 320, left = 70, right = 190, top = 30, bottom = 45;
  double max_x = 0, max_y = 0;
  for (const Series& s : series)
    for (const Point& p : s.points) {
      max_x = std::max(max_x, p.x);
      max_y = std::max(max_y, p.y);
    }
  const double xs = tick_step(max_x), ys = tick_step(max_y * 1.05);
  const double x_end = std::max(xs, std::ceil(max_x / xs) * xs), y_end = std::max(ys, std::ceil(max_y * 1.05 / ys) * ys);
  auto px = [&](double x) { return left + x / x_end * (W - left - right); };
  auto py = [&](double y) { return H - bottom - y / y_end * (H - top - bottom); };
  std::string svg = "<h2>" + escape(title) + "</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(W) +
                    "\" height=\"" + num(H) + "\" viewBox=\"0 0 " + num(W) + " " + num(H) + "\">\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + num(W) + "\" height=\"" + num(H) + "\" fill=\"#ffffff\"/>\n";
  for (double x = 0; x <= x_end + xs / 2; x += xs)
    svg += "<line x1=\"" + num(px(x)) + "\" y1=\"" + num(top) + "\" x2=\"" + num(px(x)) + "\" y2=\"" + num(H - bottom) +
           "\" stroke=\"#e0e0e0\"/><text x=\"" + num(px(x)) + "\" y=\"" + num(H - bottom + 16) +
           "\" text-anchor=\"middle\">" + num(x) + "</text>\n";
  for (double y = 0; y <= y_end + ys / 2; y += ys)
    svg += "<line x1=\"" + num(left) + "\" y1=\"" + num(py(y)) + "\" x2=\"" + num(W - right) + "\" y2=\"" +
           num(py(y)) + "\" stroke=\"#e0e0e0\"/><text x=\"" + num(left - 6) + "\" y=\"" + num(py(y) + 4) +
           "\" text-anchor=\"end\">" + num(y) + "</text>\n";
  svg += "<text x=\"" + num((left + W - right) / 2) + "\" y=\"" + num(H - 8) + "\" text-anchor=\"middle\">" +
         escape(x_label) + "</text>\n<text x=\"14\" y=\"" + num((top + H - bottom) / 2) +
         "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " + num((top + H - bottom) / 2) + ")\">" +
         escape(y_label) + "</text>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const std::string color = kPalette[i % std::size(kPalette)];
    svg += "<g data-series=\"" + escape(s.name) + "\">\n<polyline fill=\"none\" stroke=\"" + color +
           "\" stroke-width=\"2\" points=\"";
    for (size_t k = 0; k < s.points.size(); ++k) {
      if (k > 0) svg += num(px(s.points[k].x)) + "," + num(py(s.points[k - 1].y)) + " ";
      svg += num(px(s.points[k].x)) + "," + num(py(s.points[k].y)) + " ";
    }
    svg += "\"/>\n";
    for (const Point& p : s.points)
      svg += "<circle cx=\"" + num(px(p.x)) + "\" cy=\"" + num(py(p.y)) + "\" r=\"3\" fill=\"" + color +
             "\" data-x=\"" + num(p.x) + "\" data-y=\"" + num(p.y) + "\"/>\n";
    svg += "</g>\n<text x=\"" + num(W - right + 10) + "\" y=\"" + num(top + 14 * (i + 1)) + "\" fill=\"" + color +
           "\">" + escape(s.label) + "</text>\n";
  }
  return svg + "</svg>\n";
}

// Horizontal bars, one per (label, value).
std::string bar_chart(const std::string& title, const std::string& name, const std::vector<std::pair<std::string, double>>& bars,
                      const std::string& unit) {
  constexpr double W = 900, label_w = 300, bar_h = 18, gap = 6;
  const double H = 20 + bars.size() * (bar_h + gap);
  double max = 0;
  for (const auto& [label, v] : bars) max = std::max(max, v);
  std::string svg = "<h2>" + escape(title) + "</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(W) +
                    "\" height=\"" + num(H) + "\">\n<g data-series=\"" + name + "\">\n";
  for (size_t i = 0; i < bars.size(); ++i) {
    const auto& [label, v] = bars[i];
    const double y = 10 + i * (bar_h + gap), w = max > 0 ? v / max * (W - label_w - 120) : 0;
    svg += "<text x=\"" + num(label_w - 8) + "\" y=\"" + num(y + 13) + "\" text-anchor=\"end\">" + escape(label) +
           "</text><rect x=\"" + num(label_w) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" +
           num(bar_h) + "\" fill=\"" + kPalette[i % std::size(kPalette)] + "\" data-x=\"" + escape(label) +
           "\" data-y=\"" + num(v) + "\"/><text x=\"" + num(label_w + w + 6) + "\" y=\"" + num(y + 13) + "\">" +
           fixed(v, 1) + unit + "</text>\n";
  }
  return svg + "</g>\n</svg>\n";
}

}  // namespace

ReportData report_data(const std::vector<log::Record>& records, std::vector<ReportTask> tasks) {
  ReportData d;
  if (tasks.empty()) {
    for (const log::Record& r : records)
      if (std::none_of(tasks.begin(), tasks.end(), [&](const ReportTask& t) { return t.workload_key == r.task.workload_key; }))
        tasks.push_back({r.task.workload_key, r.task.name, 1});
  }
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < tasks.size(); ++i) index.emplace(tasks[i].workload_key, i);
  d.tasks = tasks;
  std::vector<double> best(tasks.size(), kInf);
  size_t valid = 0;
  int64_t first_time = -1;
  for (const log::Record& r : records) {
    auto it = index.find(r.task.workload_key);
    if (it == index.end()) continue;
    const std::string& key = r.task.workload_key;
    d.target = r.task.target;
    ++d.records;
    if (first_time < 0) first_time = r.result.timestamp;
    const int trial = ++d.task_trials[key];
    if (!d.task_flops.count(key)) d.task_flops[key] = te::dag_from_json(r.task.dag).flop_count();
    if (!r.result.ok()) {
      ++d.task_errors[key];
      ++d.error_kinds[log::to_string(r.result.error)];
      continue;
    }
    // An estimate (construction without a device) was never timed: no point on a curve.
    const double cost = r.result.median_cost();
    if (r.result.estimated || !(cost < best[it->second])) continue;
    if (!std::isfinite(best[it->second])) ++valid;
    best[it->second] = cost;
    d.task_best_s[key] = cost;
    d.task_steps[key] = schedule::steps_to_json(r.steps).dump();
    d.task_gflops[key].push_back({double(trial), cost > 0 ? d.task_flops[key] / cost / 1e9 : 0});
    if (valid < tasks.size()) continue;
    double latency = 0;
    for (size_t i = 0; i < tasks.size(); ++i) latency += tasks[i].weight * best[i];
    d.latency_by_trial.push_back({double(d.records), latency * 1e3});
    d.latency_by_time.push_back({double(r.result.timestamp - first_time), latency * 1e3});
  }
  // Each curve runs to the last trial (and time) it covers.
  if (!d.latency_by_trial.empty() && d.latency_by_trial.back().x < d.records)
    d.latency_by_trial.push_back({double(d.records), d.latency_by_trial.back().y});
  for (auto& [key, points] : d.task_gflops)
    if (points.back().x < d.task_trials[key]) points.push_back({double(d.task_trials[key]), points.back().y});
  return d;
}

std::string report_html(const ReportData& d, const std::string& title) {
  double latency = 0;
  bool complete = true;
  for (const ReportTask& t : d.tasks) {
    auto it = d.task_best_s.find(t.workload_key);
    if (it == d.task_best_s.end()) complete = false;
    else latency += t.weight * it->second;
  }
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(title) +
                     "</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222;background:#fff}"
                     "svg text{font-size:12px;font-family:sans-serif}h2{font-size:16px;margin:28px 0 6px}"
                     "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;"
                     "text-align:right;vertical-align:top}td.steps{text-align:left;font-family:monospace;"
                     "max-width:520px;word-break:break-all}</style></head>\n<body>\n";
  html += "<h1>" + escape(title) + "</h1>\n<p>target <b>" + escape(d.target) + "</b>: " + std::to_string(d.records) +
          " records of " + std::to_string(d.tasks.size()) + " tasks; estimated latency (sum of weight &times; best) <b>" +
          (complete ? fixed(latency * 1e3, 4) + " ms" : std::string("unknown: a task has no valid program")) +
          "</b></p>\n";
  html += line_chart("Estimated end-to-end latency against trials", "trials (records in log order)", "ms",
                     {{"latency-trials", "sum of weight x best", d.latency_by_trial}});
  html += line_chart("Estimated end-to-end latency against wall time", "seconds since the first record", "ms",
                     {{"latency-time", "sum of weight x best", d.latency_by_time}});
  std::vector<Series> gflops;
  for (const ReportTask& t : d.tasks) {
    auto it = d.task_gflops.find(t.workload_key);
    if (it != d.task_gflops.end()) gflops.push_back({"gflops-" + t.workload_key, t.name, it->second});
  }
  html += line_chart("Best GFLOP/s of each task against its trials", "trials of the task", "GFLOP/s", gflops);
  std::vector<std::pair<std::string, double>> shares, errors;
  for (const ReportTask& t : d.tasks) {
    auto it = d.task_best_s.find(t.workload_key);
    if (complete && it != d.task_best_s.end()) shares.emplace_back(t.name, t.weight * it->second / latency * 100);
  }
  html += bar_chart("Share of the estimated latency per task", "share", shares, "%");
  for (const auto& [kind, n] : d.error_kinds) errors.emplace_back(kind, n);
  html += errors.empty() ? "<h2>Error kinds</h2>\n<p>no measurement failed</p>\n"
                         : bar_chart("Error kinds", "errors", errors, " records");
  html += "<h2>Tasks</h2>\n<table>\n<tr><th>#</th><th>task</th><th>workload key</th><th>weight</th><th>trials</th>"
          "<th>errors</th><th>best ms</th><th>GFLOP/s</th><th>best program's steps</th></tr>\n";
  for (size_t i = 0; i < d.tasks.size(); ++i) {
    const ReportTask& t = d.tasks[i];
    auto best = d.task_best_s.find(t.workload_key);
    auto count = [](const std::map<std::string, int>& m, const std::string& k) {
      auto it = m.find(k);
      return it == m.end() ? 0 : it->second;
    };
    const bool has = best != d.task_best_s.end();
    html += "<tr><td>" + std::to_string(i) + "</td><td>" + escape(t.name) + "</td><td>" + t.workload_key + "</td><td>" +
            std::to_string(t.weight) + "</td><td>" + std::to_string(count(d.task_trials, t.workload_key)) + "</td><td>" +
            std::to_string(count(d.task_errors, t.workload_key)) + "</td><td>" +
            (has ? fixed(best->second * 1e3, 4) : "-") + "</td><td>" +
            (has && best->second > 0 ? fixed(d.task_flops.at(t.workload_key) / best->second / 1e9, 2) : "-") +
            "</td><td class=\"steps\">" + (has ? escape(d.task_steps.at(t.workload_key)) : "") + "</td></tr>\n";
  }
  return html + "</table>\n</body></html>\n";
}

}  // namespace tunectl::report

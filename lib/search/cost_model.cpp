#include "search/cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "ir/error.h"

namespace tunectl::search {

namespace {

// XGBoost reports errors as return codes; any is a tunectl bug (bad
// parameters or shapes), never a user error.
void xgb_check(int rc, const char* what) { internal_check(rc == 0, "XGBoost ", what, ": ", XGBGetLastError()); }

// Rows of programs as one dense row-major matrix; row_owner[r] = program index.
struct PackedRows {
  std::vector<float> data;
  std::vector<size_t> row_owner;
  size_t num_cols = 0;
};

PackedRows pack(const std::vector<ProgramFeatures>& programs) {
  PackedRows p;
  for (size_t i = 0; i < programs.size(); ++i) {
    for (const auto& row : programs[i].rows) {
      if (p.num_cols == 0) p.num_cols = row.size();
      internal_check(row.size() == p.num_cols, "feature rows of different widths: ", row.size(), " vs ", p.num_cols);
      p.data.insert(p.data.end(), row.begin(), row.end());
      p.row_owner.push_back(i);
    }
  }
  return p;
}

class DMatrix {
 public:
  explicit DMatrix(const PackedRows& rows) {
    xgb_check(XGDMatrixCreateFromMat(rows.data.data(), rows.row_owner.size(), rows.num_cols,
                                     std::numeric_limits<float>::quiet_NaN(), &handle_),
              "DMatrix");
  }
  ~DMatrix() { XGDMatrixFree(handle_); }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k <= j; ++k) r[order[k]] = avg;
    i = j + 1;
  }
  return r;
}

}  // namespace

XgbCostModel::XgbCostModel(XgbParams params) : params_(params) {}

XgbCostModel::~XgbCostModel() {
  if (booster_) XGBoosterFree(booster_);
}

void XgbCostModel::update(const std::vector<ProgramFeatures>& programs, const std::vector<double>& throughputs) {
  internal_check(programs.size() == throughputs.size(), "update: ", programs.size(), " programs but ",
                 throughputs.size(), " throughputs");
  for (size_t i = 0; i < programs.size(); ++i) {
    internal_check(std::isfinite(throughputs[i]) && throughputs[i] >= 0, "update: bad throughput ", throughputs[i]);
    programs_.push_back(programs[i]);
    throughputs_.push_back(throughputs[i]);
  }
  train();
}

void XgbCostModel::train() {
  // Labels normalize to the best throughput of each task, so tasks of very
  // different sizes share one model.
  std::map<int, double> best;
  for (size_t i = 0; i < programs_.size(); ++i) best[programs_[i].task_id] = std::max(best[programs_[i].task_id], throughputs_[i]);
  PackedRows rows = pack(programs_);
  if (rows.row_owner.empty()) return;
  std::vector<float> labels;
  for (size_t owner : rows.row_owner) {
    double b = best[programs_[owner].task_id];
    labels.push_back(b > 0 ? static_cast<float>(throughputs_[owner] / b) : 0.0f);
  }

  DMatrix train(rows);

  if (booster_) XGBoosterFree(booster_);
  booster_ = nullptr;
  DMatrixHandle dmats[] = {train.get()};
  BoosterHandle booster = nullptr;
  xgb_check(XGBoosterCreate(dmats, 1, &booster), "create");
  booster_ = booster;
  const std::pair<const char*, std::string> settings[] = {
      // Gradients come from the pack-sum loss below; the objective only fixes
      // the prediction transform (identity).
      {"objective", "reg:squarederror"},
      {"max_depth", std::to_string(params_.max_depth)},
      {"eta", std::to_string(params_.eta)},
      {"gamma", std::to_string(params_.gamma)},
      {"min_child_weight", std::to_string(params_.min_child_weight)},
      {"lambda", std::to_string(params_.lambda)},
      {"base_score", std::to_string(params_.base_score)},
      {"nthread", std::to_string(params_.num_threads)},
      {"seed", std::to_string(params_.seed)},
      {"verbosity", "0"},
  };
  for (const auto& [key, value] : settings) xgb_check(XGBoosterSetParam(booster, key, value.c_str()), key);

  // Ansor's pack-sum squared error: the loss is (sum of a program's row
  // predictions - its label)^2, weighted by the label so the fast programs,
  // whose ranking matters, are fitted best. Its gradient reaches every row of
  // the program alike; XGBoost boosts on these gradients directly.
  size_t n = rows.row_owner.size();
  std::vector<float> grad(n), hess(n);
  std::vector<double> sums(programs_.size());
  for (int round = 0; round < params_.num_rounds; ++round) {
    bst_ulong len = 0;
    const float* margin = nullptr;
    xgb_check(XGBoosterPredict(booster, train.get(), /*output margin*/ 1, 0, /*training*/ 1, &len, &margin), "predict");
    internal_check(len == n, "XGBoost returned ", len, " predictions for ", n, " rows");
    std::fill(sums.begin(), sums.end(), 0.0);
    for (size_t r = 0; r < n; ++r) sums[rows.row_owner[r]] += margin[r];
    for (size_t r = 0; r < n; ++r) {
      double weight = std::max<double>(labels[r], params_.min_weight);
      grad[r] = static_cast<float>((sums[rows.row_owner[r]] - labels[r]) * weight);
      hess[r] = static_cast<float>(weight);
    }
    xgb_check(XGBoosterBoostOneIter(booster, train.get(), grad.data(), hess.data(), n), "boost");
  }
}

std::vector<double> XgbCostModel::predict(const std::vector<ProgramFeatures>& programs) {
  std::vector<double> scores(programs.size(), 0.0);
  PackedRows rows = pack(programs);
  if (!booster_ || rows.row_owner.empty()) return scores;
  DMatrix dmat(rows);
  bst_ulong len = 0;
  const float* out = nullptr;
  xgb_check(XGBoosterPredict(booster_, dmat.get(), 0, 0, 0, &len, &out), "predict");
  internal_check(len == rows.row_owner.size(), "XGBoost returned ", len, " predictions for ", rows.row_owner.size(), " rows");
  for (size_t r = 0; r < len; ++r) scores[rows.row_owner[r]] += out[r];
  return scores;
}

std::vector<double> RandomCostModel::predict(const std::vector<ProgramFeatures>& programs) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> scores;
  for (size_t i = 0; i < programs.size(); ++i) scores.push_back(uniform(rng_));
  return scores;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  internal_check(a.size() == b.size() && a.size() >= 2, "spearman needs two equal-size samples of >= 2");
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double n = static_cast<double>(a.size());
  double mean = (n - 1) / 2.0;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (va == 0 || vb == 0) return 0.0;
  return cov / std::sqrt(va * vb);
}

}  // namespace tunectl::search

// The learned cost model: ranks candidate programs before any of them is
// measured. Search extracts features of lowered candidates (features.h),
// asks predict() for scores, measures the best-scored ones, and feeds the
// measured throughputs back with update() (ALGORITHMS.md "Cost model").
// Higher scores mean faster programs; scores only rank, they are not times.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

namespace tunectl::search {

// The feature rows of one program (one per store, extract_features) and the
// task it belongs to, so labels can be normalized per task.
struct ProgramFeatures {
  int task_id = 0;
  std::vector<std::vector<float>> rows;
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Adds measured programs: throughputs[i] is 1 / cost of programs[i] in
  // any unit consistent within a task (0 for a failed program).
  virtual void update(const std::vector<ProgramFeatures>& programs, const std::vector<double>& throughputs) = 0;
  // One score per program; higher predicts faster.
  virtual std::vector<double> predict(const std::vector<ProgramFeatures>& programs) = 0;
};

// Tunables of XgbCostModel; defaults follow Ansor's xgb_model.py.
struct XgbParams {
  int max_depth = 10;         // tree depth
  double eta = 0.2;           // learning rate
  double gamma = 0.001;       // minimum loss reduction for a split
  double min_child_weight = 0;  // labels are the weights, so tiny leaves are allowed
  double lambda = 1.0;         // L2 regularization of leaf values
  double base_score = 0.0;    // initial row prediction; 0 so a program's sum is not its row count
  double min_weight = 0.0;    // floor of a program's weight (0: the label, as Ansor; 1: unweighted)
  int num_rounds = 100;       // most boosting rounds per retrain
  // Early stopping: every validation_every-th program is held out, and
  // boosting stops once the held-out programs' ranking within their tasks
  // (mean_task_spearman) has not improved for this many
  // rounds; the model is then refit on every program with the best round
  // count. 0: always num_rounds rounds on every program.
  int early_stopping_rounds = 10;
  int validation_every = 5;
  // XGBoost threads; 0: every core. Training runs between measurement
  // batches, when no worker builds or runs, so it may take the machine.
  int num_threads = 0;
  uint64_t seed = 43;         // XGBoost's seed: retraining on the same data gives the same model
};

// XGBoost regression on per-store rows (Ansor 5.2, xgb_model.py): a
// program's score is the sum of its rows' predictions, label = throughput /
// best throughput of its task so far (in [0, 1]), and the loss is Ansor's
// pack-sum squared error (score - label)^2 weighted by the label, so fast
// programs are fitted best. XGBoost's own reg:squarederror would fit every
// row to the whole program's label, which makes the sum count rows; the
// pack-sum gradients are handed to XGBoost directly instead. update()
// retrains from scratch on all data seen so far, as many rounds as a
// held-out fifth ranks best: on real logs a fixed 100 rounds overfit (held-out
// Spearman of light ResNet-50's tasks 0.14, against 0.45 at the 3 rounds
// that early stopping picked on the log of 2026-11-28).
// Before the first update, predict() returns zeros (search uses random
// scores until there is data).
class XgbCostModel : public CostModel {
 public:
  explicit XgbCostModel(XgbParams params = {});
  ~XgbCostModel() override;
  XgbCostModel(const XgbCostModel&) = delete;
  XgbCostModel& operator=(const XgbCostModel&) = delete;

  void update(const std::vector<ProgramFeatures>& programs, const std::vector<double>& throughputs) override;
  std::vector<double> predict(const std::vector<ProgramFeatures>& programs) override;
  // Programs trained on so far.
  size_t num_programs() const { return programs_.size(); }
  // Boosting rounds of the current model (early stopping's choice).
  int num_rounds() const { return rounds_; }

 private:
  void train();

  XgbParams params_;
  std::vector<ProgramFeatures> programs_;
  std::vector<double> throughputs_;
  void* booster_ = nullptr;  // BoosterHandle; XGBoost types stay out of this header
  int rounds_ = 0;
};

// Seeded uniform scores in [0, 1): the baseline a learned model must beat,
// and what search uses before any measurement.
class RandomCostModel : public CostModel {
 public:
  explicit RandomCostModel(uint64_t seed = 0) : rng_(seed) {}
  void update(const std::vector<ProgramFeatures>&, const std::vector<double>&) override {}
  std::vector<double> predict(const std::vector<ProgramFeatures>& programs) override;

 private:
  std::mt19937_64 rng_;
};

// Spearman rank correlation of a and b (equal sizes, >= 2 entries): the
// Pearson correlation of their ranks, ties taking their average rank. 0 when
// either side is constant. How well a cost model ranks is what search needs.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

// The mean over tasks (task_of: one per program) with at least min_programs
// programs of the Spearman correlation between their scores and values
// (throughputs or labels); NaN when no task has that many.
double mean_task_spearman(const std::vector<double>& scores, const std::vector<double>& values,
                          const std::vector<int>& task_of, size_t min_programs = 5);

}  // namespace tunectl::search

// The cost models: Spearman correlation itself, seeded random scores,
// XGBoost learning a known monotone function on synthetic rows, and its early
// stopping. Ranking measured programs: test_cost_model_measured.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "search/cost_model.h"
#include "search/features.h"

using namespace tunectl;

TEST_CASE("spearman: ranks, ties and constant samples", "[cpu]") {
  CHECK(search::spearman({1, 2, 3, 4}, {10, 20, 30, 400}) == Approx(1.0));
  CHECK(search::spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == Approx(-1.0));
  CHECK(search::spearman({1, 2, 3}, {5, 5, 5}) == 0.0);
  // Ties share their average rank: ranks (0, 1.5, 1.5, 3) against (0, 1, 2, 3).
  CHECK(search::spearman({1, 2, 2, 3}, {1, 2, 3, 4}) == Approx(4.5 / std::sqrt(4.5 * 5.0)));
}

TEST_CASE("random cost model: seeded scores from 0 up to 1", "[cpu]") {
  std::vector<search::ProgramFeatures> programs(20);
  search::RandomCostModel a(3), b(3);
  auto sa = a.predict(programs), sb = b.predict(programs);
  REQUIRE(sa.size() == programs.size());
  CHECK(sa == sb);
  for (double s : sa) CHECK((s >= 0.0 && s < 1.0));
}

TEST_CASE("xgb cost model ranks held-out synthetic programs", "[cpu]") {
  // One-row programs with random features; a program's throughput is a known
  // monotone function of two features, scaled differently per task (labels
  // normalize per task). One row, because every row of a program is trained
  // on the program's label: with several rows, the model's error depends on
  // how the rows split the work, which synthetic rows cannot make sensible.
  const size_t width = search::feature_names().size();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> feature(0.0f, 10.0f);
  auto make = [&](int n, std::vector<search::ProgramFeatures>& programs, std::vector<double>& quality,
                  std::vector<double>& throughputs) {
    for (int i = 0; i < n; ++i) {
      search::ProgramFeatures p;
      p.task_id = i % 2;
      std::vector<float> row(width);
      for (auto& x : row) x = feature(rng);
      double q = 0.5 * row[3] - 0.3 * row[7];
      p.rows.push_back(std::move(row));
      programs.push_back(std::move(p));
      quality.push_back(q);
      throughputs.push_back(std::exp(0.3 * q) * (p.task_id == 0 ? 1.0 : 1000.0));
    }
  };
  std::vector<search::ProgramFeatures> train, test;
  std::vector<double> train_q, test_q, train_t, test_t;
  make(400, train, train_q, train_t);
  make(150, test, test_q, test_t);

  search::XgbCostModel model;
  CHECK(model.predict(test) == std::vector<double>(test.size(), 0.0));  // untrained
  model.update(train, train_t);
  CHECK(model.num_programs() == train.size());
  auto scores = model.predict(test);
  double rho = search::spearman(scores, test_q);
  INFO("spearman " << rho);
  CHECK(rho > 0.8);
  // Retraining on the same data is deterministic.
  search::XgbCostModel again;
  again.update(train, train_t);
  CHECK(again.predict(test) == scores);
}

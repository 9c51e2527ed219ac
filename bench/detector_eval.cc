// Evaluation of the default semantic-drift detectors (docs/data_tests.md, issue 21):
// synthetic daily loads of an orders feed (weekly seasonal volume, log-normal amounts,
// a daily rhythm of event times, categorical statuses and countries, a nullable email),
// each trial a fresh 28-day history with its own base levels, then each of the article's
// changes injected on a random later day and checked against the trailing baseline, plus
// an unchanged load of the same day as the control. Detection rate per case: the case's
// detector raised (warn or fail) on its column. False alarms: raised findings on the
// controls, per test and load. Writes JSON to stdout (bench/run_detector_eval.py makes
// the tables).

#include <arrow/api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "deltaguard/quality/detectors.h"
#include "deltaguard/quality/profile.h"

namespace dg = deltaguard;

namespace {

constexpr int64_t kDayMs = 86400000;

struct Change {
  double scale = 1.0;          // amount x this
  int hours = 0;               // event_ts shifted
  double new_status = 0.0;     // share of a never-seen status
  double null_rise = 0.0;      // email null rate + this
  double volume = 1.0;         // rows x this
  bool country_names = false;  // ISO codes -> names
};

struct Feed {  // one trial's base levels
  double rows = 2000;
  double amount_mu = 7.0;
  double amount_sigma = 0.6;
  double hour_mu = 14.0;
  double hour_sigma = 3.0;
  double null_email = 0.01;
  std::vector<double> status_share;  // pending, shipped, delivered, cancelled
  std::vector<double> country_share;
};

const char* kStatus[] = {"pending", "shipped", "delivered", "cancelled"};
const char* kIso[] = {"US", "DE", "FR", "GB", "JP", "BR", "IN", "CA"};
const char* kNames[] = {"United States", "Germany", "France", "United Kingdom",
                        "Japan",         "Brazil",  "India",  "Canada"};

size_t Pick(std::mt19937_64& rng, const std::vector<double>& shares) {
  double r = std::uniform_real_distribution<double>(0, 1)(rng);
  for (size_t i = 0; i < shares.size(); ++i) {
    if ((r -= shares[i]) < 0) return i;
  }
  return shares.size() - 1;
}

dg::TableProfile Load(const Feed& f, int day, const Change& c, std::mt19937_64& rng) {
  // Weekly seasonality: weekends carry 60% of a weekday's orders; 5% daily noise.
  const bool weekend = day % 7 == 5 || day % 7 == 6;
  std::normal_distribution<double> noise(1.0, 0.05);
  const int64_t rows = std::max<int64_t>(
      50, static_cast<int64_t>(f.rows * (weekend ? 0.6 : 1.0) * noise(rng) * c.volume));
  std::lognormal_distribution<double> amount(f.amount_mu, f.amount_sigma);
  std::normal_distribution<double> hour(f.hour_mu, f.hour_sigma);
  std::uniform_real_distribution<double> u(0, 1);
  // Day-to-day drift of the mixes: each share moves by up to 10% of itself.
  std::vector<double> status = f.status_share;
  for (auto& s : status) s *= 1 + 0.1 * (u(rng) - 0.5);
  double total = 0;
  for (double s : status) total += s;
  for (auto& s : status) s /= total;
  const double null_email =
      std::max(0.0, f.null_email * (1 + 0.2 * (u(rng) - 0.5))) + c.null_rise;
  const auto new_rows = static_cast<int64_t>(std::ceil(c.new_status * rows));
  arrow::DoubleBuilder a;
  arrow::TimestampBuilder t(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                            arrow::default_memory_pool());
  arrow::StringBuilder st, co, em;
  for (int64_t i = 0; i < rows; ++i) {
    (void)a.Append(std::round(amount(rng)) * c.scale);
    double h = std::fmod(std::clamp(hour(rng), 0.0, 23.999) + c.hours + 24.0, 24.0);
    (void)t.Append((day * kDayMs + static_cast<int64_t>(h * 3600000)) * 1000);
    // The new status on exactly ceil(share x rows) rows: the target is about a value
    // at >= 0.5% of the load's rows.
    (void)st.Append(i < new_rows ? "PARTIALLY_SHIPPED" : kStatus[Pick(rng, status)]);
    const size_t k = Pick(rng, f.country_share);
    (void)co.Append(c.country_names ? kNames[k] : kIso[k]);
    (void)(u(rng) < null_email
               ? em.AppendNull()
               : em.Append(fmt::format("user{}@mail.example", rng() % 100000)));
  }
  auto schema = arrow::schema(
      {arrow::field("amount", arrow::float64()), arrow::field("event_ts", t.type()),
       arrow::field("status", arrow::utf8()), arrow::field("country", arrow::utf8()),
       arrow::field("email", arrow::utf8())});
  auto batch = arrow::RecordBatch::Make(
      schema, rows, {*a.Finish(), *t.Finish(), *st.Finish(), *co.Finish(), *em.Finish()});
  auto p = dg::ProfileBatches(schema, {batch});
  if (!p) {
    std::fprintf(stderr, "%s\n", p.error().message.c_str());
    std::exit(1);
  }
  p->version = day;
  p->timestamp_ms = (day + 1) * kDayMs;
  return std::move(*p);
}

Feed MakeFeed(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  Feed f;
  f.rows = 1000 + 4000 * u(rng);
  f.amount_mu = 5 + 3 * u(rng);
  f.amount_sigma = 0.4 + 0.6 * u(rng);
  f.hour_mu = 10 + 8 * u(rng);
  f.hour_sigma = 2 + 3 * u(rng);
  f.null_email = 0.005 + 0.03 * u(rng);
  f.status_share = {0.3 + 0.2 * u(rng), 0.3, 0.2, 0.05 + 0.05 * u(rng)};
  f.country_share = {0.3, 0.15, 0.1, 0.1, 0.1, 0.1, 0.1, 0.05};
  return f;
}

struct Case {
  std::string name;
  std::string detector;
  std::string column;
  std::function<Change(std::mt19937_64&)> make;
};

}  // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 500;
  const uint64_t seed_base = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
  const bool debug = std::getenv("DETECTOR_EVAL_DEBUG") != nullptr;
  std::uniform_real_distribution<double> u(0, 1);
  const std::vector<Case> cases = {
      {"amount x100 (dollars to cents)", "SCALE_SHIFT", "amount",
       [](std::mt19937_64&) {
         Change c;
         c.scale = 100;
         return c;
       }},
      {"amount x0.01 (cents to dollars)", "SCALE_SHIFT", "amount",
       [](std::mt19937_64&) {
         Change c;
         c.scale = 0.01;
         return c;
       }},
      {"event_ts shifted 2-9 h (UTC to local)", "TIME_OFFSET_SHIFT", "event_ts",
       [](std::mt19937_64& r) {
         Change c;
         int h = 2 + static_cast<int>(r() % 8);
         c.hours = r() % 2 ? h : -h;
         return c;
       }},
      {"new status at 0.5-3% of rows", "NEW_CATEGORY", "status",
       [u](std::mt19937_64& r) mutable {
         Change c;
         c.new_status = 0.005 + 0.025 * u(r);
         return c;
       }},
      {"email null rate +5 points", "NULL_RATE_SHIFT", "email",
       [](std::mt19937_64&) {
         Change c;
         c.null_rise = 0.05;
         return c;
       }},
      {"volume -30%", "VOLUME_ANOMALY", "",
       [](std::mt19937_64&) {
         Change c;
         c.volume = 0.7;
         return c;
       }},
      {"country ISO codes to names", "FORMAT_DRIFT", "country",
       [](std::mt19937_64&) {
         Change c;
         c.country_names = true;
         return c;
       }},
  };
  std::vector<int64_t> detected(cases.size(), 0);
  std::map<std::string, int64_t> false_alarms;  // "TEST column" -> raised on controls
  std::map<std::string, int64_t> control_runs;  // "TEST column" -> ran (not skipped)
  int64_t controls = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int trial = 0; trial < trials; ++trial) {
    std::mt19937_64 rng(seed_base + static_cast<uint64_t>(trial));
    Feed feed = MakeFeed(rng);
    const int day = 21 + static_cast<int>(rng() % 7);  // the change day
    std::vector<dg::TableProfile> history;
    for (int d = 0; d < day; ++d) history.push_back(Load(feed, d, Change{}, rng));
    auto check = [&](const Change& change) {
      dg::TableProfile current = Load(feed, day, change, rng);
      return dg::RunDetectors(current, dg::SelectBaseline(history, current, {}));
    };
    for (size_t i = 0; i < cases.size(); ++i) {
      bool hit = false;
      const auto found = check(cases[i].make(rng));
      for (const auto& f : found) {
        if (f.test == cases[i].detector && f.column == cases[i].column &&
            (f.outcome == dg::CheckOutcome::kFailed ||
             f.outcome == dg::CheckOutcome::kWarning)) {
          hit = true;
          break;
        }
      }
      detected[i] += hit ? 1 : 0;
      if (!hit && debug) {  // what the detector saw on a miss
        for (const auto& f : found) {
          if (f.test == cases[i].detector && f.column == cases[i].column) {
            std::fprintf(stderr, "miss %s (trial %d): %s | observed %s | baseline %s\n",
                         cases[i].name.c_str(), trial, f.message.c_str(),
                         f.observed.c_str(), f.baseline.c_str());
          }
        }
      }
    }
    ++controls;
    for (const auto& f : check(Change{})) {
      const std::string key = f.test + (f.column.empty() ? "" : " " + f.column);
      if (f.outcome == dg::CheckOutcome::kSkipped) continue;
      ++control_runs[key];
      if (f.outcome == dg::CheckOutcome::kFailed ||
          f.outcome == dg::CheckOutcome::kWarning) {
        ++false_alarms[key];
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string out =
      fmt::format("{{\"trials\":{},\"seconds\":{:.1f},\"cases\":[", trials, seconds);
  for (size_t i = 0; i < cases.size(); ++i) {
    out += fmt::format(
        "{}{{\"case\":\"{}\",\"detector\":\"{}\",\"detected\":{},"
        "\"rate\":{:.4f}}}",
        i ? "," : "", cases[i].name, cases[i].detector, detected[i],
        static_cast<double>(detected[i]) / trials);
  }
  out += "],\"controls\":" + std::to_string(controls) + ",\"false_alarms\":[";
  bool first = true;
  for (const auto& [key, runs] : control_runs) {
    const int64_t n = false_alarms.count(key) ? false_alarms[key] : 0;
    out += fmt::format("{}{{\"test\":\"{}\",\"runs\":{},\"raised\":{},\"rate\":{:.4f}}}",
                       first ? "" : ",", key, runs, n, static_cast<double>(n) / runs);
    first = false;
  }
  out += "]}";
  std::printf("%s\n", out.c_str());
  return 0;
}

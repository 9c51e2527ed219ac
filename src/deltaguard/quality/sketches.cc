// The sketches of sketches.h over Apache DataSketches. The only file that includes
// DataSketches: its deserializers throw on malformed bytes, and this is where such an
// exception becomes a Result (the library itself never throws, ARCHITECTURE.md).

#include "deltaguard/quality/sketches.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <frequent_items_sketch.hpp>
#include <hll.hpp>
#include <kll_sketch.hpp>
#include <limits>
#include <optional>

namespace deltaguard {
namespace {

constexpr uint16_t kKllK = 200;
constexpr uint8_t kHllLgK = 12;
constexpr uint8_t kTopLgMaxMap = 7;

using Kll = datasketches::kll_sketch<double>;
using Hll = datasketches::hll_sketch;
using FrequentItems = datasketches::frequent_items_sketch<std::string>;

std::string ToString(const std::vector<uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

template <typename Fn>
auto Guard(std::string_view what, Fn&& fn) -> Result<decltype(fn())> {
  try {
    return fn();
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kCorruptData, "{} sketch does not deserialize: {}", what,
                     e.what());
  }
}

}  // namespace

void SeedSketches(uint64_t seed) {
  datasketches::random_bit.seed(static_cast<uint32_t>(seed ^ (seed >> 32)));
}

// ---------------------------------------------------------------- QuantileSketch
struct QuantileSketch::Impl {
  Kll sketch{kKllK};
};

QuantileSketch::QuantileSketch() : impl_(std::make_unique<Impl>()) {}
QuantileSketch::~QuantileSketch() = default;
QuantileSketch::QuantileSketch(QuantileSketch&&) noexcept = default;
QuantileSketch& QuantileSketch::operator=(QuantileSketch&&) noexcept = default;

void QuantileSketch::Update(double value) {
  if (!std::isnan(value)) impl_->sketch.update(value);
}
void QuantileSketch::Merge(const QuantileSketch& other) {
  if (other.impl_->sketch.is_empty()) return;
  // The compactions of a merge draw random bits; seeding them from the two sizes makes
  // the merged sketch a function of its inputs, so `check` in two processes (the CLI,
  // Python) merges a baseline to the same quantiles.
  SeedSketches(impl_->sketch.get_n() * 0x9E3779B97F4A7C15ULL ^
               other.impl_->sketch.get_n());
  impl_->sketch.merge(other.impl_->sketch);
}
bool QuantileSketch::empty() const { return impl_->sketch.is_empty(); }
uint64_t QuantileSketch::count() const { return impl_->sketch.get_n(); }
double QuantileSketch::Quantile(double rank) const {
  if (empty()) return std::numeric_limits<double>::quiet_NaN();
  return impl_->sketch.get_quantile(std::clamp(rank, 0.0, 1.0));
}
double QuantileSketch::Cdf(double value) const {
  if (empty() || std::isnan(value)) return std::numeric_limits<double>::quiet_NaN();
  return impl_->sketch.get_rank(value);
}
double QuantileSketch::min() const {
  return empty() ? std::numeric_limits<double>::quiet_NaN()
                 : impl_->sketch.get_min_item();
}
double QuantileSketch::max() const {
  return empty() ? std::numeric_limits<double>::quiet_NaN()
                 : impl_->sketch.get_max_item();
}
std::string QuantileSketch::Serialize() const {
  return ToString(impl_->sketch.serialize());
}
Result<QuantileSketch> QuantileSketch::Deserialize(std::string_view bytes) {
  return Guard("quantile", [&] {
    QuantileSketch out;
    out.impl_->sketch = Kll::deserialize(bytes.data(), bytes.size());
    return out;
  });
}
QuantileSketch QuantileSketch::Clone() const {
  QuantileSketch out;
  out.impl_->sketch = impl_->sketch;
  return out;
}

// ---------------------------------------------------------------- DistinctSketch
struct DistinctSketch::Impl {
  // Merges go into a union kept between them (a merge of many sketches is one union,
  // not a union and a result per pair); the sketch is settled from it when read.
  mutable Hll sketch{kHllLgK};
  mutable std::optional<datasketches::hll_union> merging;

  const Hll& Settled() const {
    if (merging) {
      sketch = merging->get_result(datasketches::HLL_4);
      merging.reset();
    }
    return sketch;
  }
};

DistinctSketch::DistinctSketch() : impl_(std::make_unique<Impl>()) {}
DistinctSketch::~DistinctSketch() = default;
DistinctSketch::DistinctSketch(DistinctSketch&&) noexcept = default;
DistinctSketch& DistinctSketch::operator=(DistinctSketch&&) noexcept = default;

void DistinctSketch::Update(std::string_view value) {
  impl_->Settled();
  impl_->sketch.update(value.data(), value.size());
}
void DistinctSketch::Update(int64_t value) {
  impl_->Settled();
  impl_->sketch.update(value);
}
void DistinctSketch::Update(double value) {
  impl_->Settled();
  impl_->sketch.update(value);
}
void DistinctSketch::Merge(const DistinctSketch& other) {
  if (!impl_->merging) {
    impl_->merging.emplace(kHllLgK);
    impl_->merging->update(impl_->sketch);
  }
  if (other.impl_->merging) {
    impl_->merging->update(other.impl_->merging->get_result(datasketches::HLL_8));
  } else {
    impl_->merging->update(other.impl_->sketch);
  }
}
double DistinctSketch::Estimate() const {
  return impl_->merging ? impl_->merging->get_estimate() : impl_->sketch.get_estimate();
}
std::string DistinctSketch::Serialize() const {
  return ToString(impl_->Settled().serialize_compact());
}
Result<DistinctSketch> DistinctSketch::Deserialize(std::string_view bytes) {
  return Guard("distinct-count", [&] {
    DistinctSketch out;
    out.impl_->sketch = Hll::deserialize(bytes.data(), bytes.size());
    return out;
  });
}
DistinctSketch DistinctSketch::Clone() const {
  DistinctSketch out;
  out.impl_->sketch = impl_->Settled();
  return out;
}

// ---------------------------------------------------------------- TopValuesSketch
struct TopValuesSketch::Impl {
  FrequentItems sketch{kTopLgMaxMap};
};

TopValuesSketch::TopValuesSketch() : impl_(std::make_unique<Impl>()) {}
TopValuesSketch::~TopValuesSketch() = default;
TopValuesSketch::TopValuesSketch(TopValuesSketch&&) noexcept = default;
TopValuesSketch& TopValuesSketch::operator=(TopValuesSketch&&) noexcept = default;

void TopValuesSketch::Update(std::string_view value, uint64_t weight) {
  if (weight > 0) impl_->sketch.update(std::string(value), weight);
}
void TopValuesSketch::Merge(const TopValuesSketch& other) {
  impl_->sketch.merge(other.impl_->sketch);
}
uint64_t TopValuesSketch::total_weight() const {
  return impl_->sketch.get_total_weight();
}
uint64_t TopValuesSketch::max_error() const { return impl_->sketch.get_maximum_error(); }
std::vector<TopValue> TopValuesSketch::Top(size_t limit) const {
  std::vector<TopValue> out;
  // Every tracked value (threshold 0), not only those certainly above the error.
  for (const auto& row :
       impl_->sketch.get_frequent_items(datasketches::NO_FALSE_POSITIVES, 0)) {
    out.push_back({row.get_item(), static_cast<int64_t>(row.get_estimate())});
  }
  std::sort(out.begin(), out.end(), [](const TopValue& a, const TopValue& b) {
    return a.count != b.count ? a.count > b.count : a.value < b.value;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}
std::string TopValuesSketch::Serialize() const {
  return ToString(impl_->sketch.serialize());
}
Result<TopValuesSketch> TopValuesSketch::Deserialize(std::string_view bytes) {
  return Guard("top-values", [&] {
    TopValuesSketch out;
    out.impl_->sketch = FrequentItems::deserialize(bytes.data(), bytes.size());
    return out;
  });
}
TopValuesSketch TopValuesSketch::Clone() const {
  TopValuesSketch out;
  out.impl_->sketch = impl_->sketch;
  return out;
}

}  // namespace deltaguard

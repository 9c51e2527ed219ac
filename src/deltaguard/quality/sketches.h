/// \file deltaguard/quality/sketches.h
/// The mergeable sketches a column profile keeps (docs/profiles.md "Sketches"), over
/// Apache DataSketches (header-only C++, confined to sketches.cc so no other file
/// compiles its templates):
///  - QuantileSketch: KLL over doubles (k = 200: normalized rank error about 1.65% at
///    99% confidence), for quantiles, CDFs and the distribution detectors;
///  - DistinctSketch: HyperLogLog (lg_k = 12: relative error about 1.6%), for distinct
///    counts;
///  - TopValuesSketch: Misra-Gries frequent items over strings (lg_max_map = 7: at most
///    96 tracked values; a value whose share is above about 1/64 of the weight is never
///    missed), for categories and character-class patterns.
/// Each serializes to DataSketches' own binary format (what the profile table stores)
/// and merges with another of its kind, so a baseline over many commits is the merge of
/// their sketches. Move-only; Clone() copies through the serialized form.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// Seeds the random bits the quantile sketch's compactions draw on this thread. The
/// KLL sketch is randomized; seeding it from the data's position (the profiler per
/// batch, a merge from the two sizes) makes a profile, and a baseline merged from
/// stored profiles, the same in every process for the same input.
void SeedSketches(uint64_t seed);

class QuantileSketch {
 public:
  QuantileSketch();
  ~QuantileSketch();
  QuantileSketch(QuantileSketch&&) noexcept;
  QuantileSketch& operator=(QuantileSketch&&) noexcept;

  void Update(double value);  ///< NaN is ignored
  void Merge(const QuantileSketch& other);
  bool empty() const;
  uint64_t count() const;  ///< values seen
  /// The value at normalized rank `rank` in [0, 1]; NaN when empty.
  double Quantile(double rank) const;
  /// The fraction of values <= `value`; NaN when empty.
  double Cdf(double value) const;
  double min() const;  ///< exact; NaN when empty
  double max() const;  ///< exact; NaN when empty

  std::string Serialize() const;
  static Result<QuantileSketch> Deserialize(std::string_view bytes);
  QuantileSketch Clone() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class DistinctSketch {
 public:
  DistinctSketch();
  ~DistinctSketch();
  DistinctSketch(DistinctSketch&&) noexcept;
  DistinctSketch& operator=(DistinctSketch&&) noexcept;

  void Update(std::string_view value);
  void Update(int64_t value);
  void Update(double value);
  void Merge(const DistinctSketch& other);
  double Estimate() const;

  std::string Serialize() const;
  static Result<DistinctSketch> Deserialize(std::string_view bytes);
  DistinctSketch Clone() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A value and its estimated weight (a count of values, scaled by the sampling rate).
struct TopValue {
  std::string value;
  int64_t count = 0;
};

class TopValuesSketch {
 public:
  TopValuesSketch();
  ~TopValuesSketch();
  TopValuesSketch(TopValuesSketch&&) noexcept;
  TopValuesSketch& operator=(TopValuesSketch&&) noexcept;

  void Update(std::string_view value, uint64_t weight = 1);
  void Merge(const TopValuesSketch& other);
  uint64_t total_weight() const;
  /// The largest possible error of any count (Misra-Gries' offset).
  uint64_t max_error() const;
  /// Up to `limit` values by estimated count, largest first, then by value.
  std::vector<TopValue> Top(size_t limit) const;

  std::string Serialize() const;
  static Result<TopValuesSketch> Deserialize(std::string_view bytes);
  TopValuesSketch Clone() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace deltaguard

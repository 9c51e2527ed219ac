/// \file deltaguard/io/parquet/file_stats_internal.h
/// The statistics tree of FileStatsCollector, shared by file_stats.cc (bounds computed
/// from the batches) and file_stats_parquet.cc (bounds taken from the Parquet footer).
/// Internal to io/parquet.
#pragma once

#include <arrow/util/decimal.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "deltaguard/io/parquet/file_stats.h"

namespace deltaguard {

/// One node per schema field that holds at least one indexed leaf. Struct fields are
/// groups (children in schema order); every other type is a leaf.
///
/// Invariant: `min`/`max` only ever hold values that occur in the file (or the initial
/// placeholder while !has_value), so folding in any further occurring value keeps them
/// exact; this is what lets Parquet's per-row-group bounds and the batches' values be
/// combined.
struct FileStatsCollector::Node {
  std::string key;      // JSON key: physical name under column mapping
  DataTypeRef type;     // Delta type (nullptr for the root)
  int field_index = 0;  // index of the field in its parent struct / batch
  std::vector<std::unique_ptr<Node>> children;  // groups only
  bool is_group = false;

  // Leaf accumulators.
  int64_t null_count = 0;
  bool min_max_type = false;    // the type gets min/max at all
  bool min_max_broken = false;  // NaN/infinity seen, or bounds unknown: no min/max
  bool has_value = false;       // at least one non-null value seen
  std::variant<int64_t, double, arrow::Decimal128, std::string> min, max;

  // Bounds from the Parquet footer (UseParquetBounds): the leaf's column index in the
  // file, -1 when the batches provide them. Such a leaf skips min/max in Update, except
  // that string leaves still fold in every value of at least `long_string_bytes` bytes:
  // Parquet drops a chunk's min or max that is longer than max_statistics_size instead
  // of truncating it, and those values are exactly the ones it can drop.
  int parquet_column = -1;
  int64_t long_string_bytes = 0;
  bool long_string_seen = false;  // a value of >= long_string_bytes was folded in
};

/// Fold one value that occurs in the file into a leaf's min/max.
template <typename T>
void ObserveBound(FileStatsCollector::Node* node, T value) {
  if (!node->has_value) {
    node->min = value;
    node->max = std::move(value);
    node->has_value = true;
    return;
  }
  if (value < std::get<T>(node->min)) node->min = value;
  if (std::get<T>(node->max) < value) node->max = std::move(value);
}

}  // namespace deltaguard

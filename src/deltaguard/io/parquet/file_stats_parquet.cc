// FileStatsCollector's bounds from the Parquet footer (file_stats.h, "Bounds from the
// Parquet footer"). Which leaves qualify, and why their Parquet bounds equal ours:
//  - byte/short/integer/date are INT32, long is INT64, both with SIGNED sort order
//    (Parquet LogicalTypes: signed INT(8|16|32|64), DATE): signed integer compares;
//  - timestamp/timestamp_ntz are INT64 TIMESTAMP(MICROS): the raw microseconds, which
//    rendering floors to milliseconds as for the batch path;
//  - decimals are INT32, INT64 or FIXED_LEN_BYTE_ARRAY DECIMAL, SIGNED order: numeric
//    compares of the unscaled value (FLBA is big-endian two's complement);
//  - strings are BYTE_ARRAY UTF8 with UNSIGNED order: unsigned bytewise compares, as
//    ours. Arrow's writer keeps chunk bounds whole and drops (never truncates) a bound
//    longer than max_statistics_size; Update still folds in every string that long,
//    so a dropped bound is always covered (file_stats_internal.h).
// Float and double stay on the batch path: Parquet skips NaN (Delta must drop the
// bounds) and writes -0.0 as the min / +0.0 as the max of a zero.
// Only non-repeated leaves qualify (arrays and maps get no min/max anyway). A nested
// leaf's Parquet bounds cover the rows where it and every enclosing struct are non-null,
// exactly the values the batch path sees after flattening.

#include <parquet/metadata.h>
#include <parquet/properties.h>
#include <parquet/schema.h>
#include <parquet/statistics.h>
#include <parquet/types.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/io/parquet/file_stats.h"
#include "deltaguard/io/parquet/file_stats_internal.h"

namespace deltaguard {
namespace {

using Node = FileStatsCollector::Node;
using ParquetPath = std::vector<std::string>;

// Whether the Parquet leaf `c` holds the leaf's values so that its bounds are ours.
bool ExactMatch(const DataType& type, const parquet::ColumnDescriptor& c) {
  if (c.max_repetition_level() != 0) return false;
  const parquet::Type::type physical = c.physical_type();
  const auto& logical = c.logical_type();
  const parquet::SortOrder::type order = c.sort_order();
  switch (type.kind()) {
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kDate:
      return physical == parquet::Type::INT32 && order == parquet::SortOrder::SIGNED;
    case TypeKind::kLong:
      return physical == parquet::Type::INT64 && order == parquet::SortOrder::SIGNED;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      if (physical != parquet::Type::INT64 || logical == nullptr ||
          !logical->is_timestamp()) {
        return false;
      }
      const auto& ts = static_cast<const parquet::TimestampLogicalType&>(*logical);
      return ts.time_unit() == parquet::LogicalType::TimeUnit::MICROS;
    }
    case TypeKind::kDecimal: {
      if (logical == nullptr || !logical->is_decimal() ||
          order != parquet::SortOrder::SIGNED) {
        return false;
      }
      const auto& dec = static_cast<const parquet::DecimalLogicalType&>(*logical);
      if (dec.scale() != static_cast<const DecimalType&>(type).scale()) return false;
      return physical == parquet::Type::INT32 || physical == parquet::Type::INT64 ||
             (physical == parquet::Type::FIXED_LEN_BYTE_ARRAY && c.type_length() >= 1 &&
              c.type_length() <= 16);
    }
    case TypeKind::kString:
      return physical == parquet::Type::BYTE_ARRAY &&
             order == parquet::SortOrder::UNSIGNED;
    default:
      return false;
  }
}

template <typename Int>
std::optional<Int> DecodeInt(const std::string& bytes) {
  if (bytes.size() != sizeof(Int)) return std::nullopt;
  Int v;
  std::memcpy(&v, bytes.data(), sizeof(Int));  // PLAIN: little-endian
  return v;
}

// Fold one plain-encoded bound into the node; false when it cannot be decoded.
bool FoldBound(const std::string& bytes, parquet::Type::type physical, Node* node) {
  switch (node->type->kind()) {
    case TypeKind::kString:
      ObserveBound<std::string>(node, bytes);
      return true;
    case TypeKind::kDecimal: {
      std::optional<arrow::Decimal128> v;
      if (physical == parquet::Type::INT32) {
        if (auto i = DecodeInt<int32_t>(bytes)) v = arrow::Decimal128(*i);
      } else if (physical == parquet::Type::INT64) {
        if (auto i = DecodeInt<int64_t>(bytes)) v = arrow::Decimal128(*i);
      } else if (!bytes.empty() && bytes.size() <= 16) {
        auto d = arrow::Decimal128::FromBigEndian(
            reinterpret_cast<const uint8_t*>(bytes.data()),
            static_cast<int32_t>(bytes.size()));
        if (d.ok()) v = *d;
      }
      if (!v) return false;
      ObserveBound<arrow::Decimal128>(node, *v);
      return true;
    }
    default: {
      std::optional<int64_t> v;
      if (physical == parquet::Type::INT32) {
        if (auto i = DecodeInt<int32_t>(bytes)) v = *i;
      } else if (auto i = DecodeInt<int64_t>(bytes)) {
        v = *i;
      }
      if (!v) return false;
      ObserveBound<int64_t>(node, *v);
      return true;
    }
  }
}

void CollectLeaves(Node* node, ParquetPath* path,
                   std::vector<std::pair<ParquetPath, Node*>>* out) {
  for (auto& child : node->children) {
    path->push_back(child->key);
    if (child->is_group) {
      CollectLeaves(child.get(), path, out);
    } else if (child->min_max_type) {
      out->emplace_back(*path, child.get());
    }
    path->pop_back();
  }
}

}  // namespace

int FileStatsCollector::UseParquetBounds(const parquet::SchemaDescriptor& schema,
                                         const parquet::WriterProperties& properties) {
  std::map<ParquetPath, int> columns;
  for (int i = 0; i < schema.num_columns(); ++i)
    columns.emplace(schema.Column(i)->path()->ToDotVector(), i);
  std::vector<std::pair<ParquetPath, Node*>> leaves;
  ParquetPath path;
  CollectLeaves(root_.get(), &path, &leaves);
  int switched = 0;
  for (auto& [leaf_path, node] : leaves) {
    auto it = columns.find(leaf_path);
    if (it == columns.end()) continue;
    const parquet::ColumnDescriptor& c = *schema.Column(it->second);
    if (!ExactMatch(*node->type, c) || !properties.statistics_enabled(c.path())) continue;
    node->parquet_column = it->second;
    // Bounds of more than max_statistics_size bytes are dropped (statistics.h,
    // ApplyStatSizeLimits); fold in everything that long ourselves.
    const size_t limit = properties.max_statistics_size(c.path());
    node->long_string_bytes =
        static_cast<int64_t>(std::min<size_t>(limit, size_t{1} << 62));
    ++switched;
  }
  return switched;
}

void FileStatsCollector::AddParquetBounds(const parquet::FileMetaData& metadata) {
  std::vector<std::pair<ParquetPath, Node*>> leaves;
  ParquetPath path;
  CollectLeaves(root_.get(), &path, &leaves);
  for (auto& [leaf_path, node] : leaves) {
    if (node->parquet_column < 0 || node->min_max_broken) continue;
    const int column = node->parquet_column;
    bool missing = false;  // a chunk with values lacks a usable bound
    for (int rg = 0; rg < metadata.num_row_groups() && !missing; ++rg) {
      auto group = metadata.RowGroup(rg);
      if (group == nullptr || column >= group->num_columns()) {
        missing = true;
        break;
      }
      auto chunk = group->ColumnChunk(column);
      if (chunk == nullptr || chunk->num_values() == 0) continue;
      auto stats = chunk->is_stats_set() ? chunk->encoded_statistics() : nullptr;
      if (stats == nullptr) {
        missing = true;
        break;
      }
      // An all-null chunk has no bounds and needs none.
      if (stats->has_null_count && stats->null_count >= chunk->num_values()) continue;
      const parquet::Type::type physical = chunk->type();
      if (stats->has_min && stats->is_min_value_exact.value_or(true)) {
        missing |= !FoldBound(stats->min(), physical, node);
      } else {
        missing = true;
      }
      if (stats->has_max && stats->is_max_value_exact.value_or(true)) {
        missing |= !FoldBound(stats->max(), physical, node);
      } else {
        missing = true;
      }
      // A string bound dropped for its length is one of the long values folded in.
      if (missing && node->type->kind() == TypeKind::kString && node->long_string_seen)
        missing = false;
    }
    if (missing) node->min_max_broken = true;
  }
}

}  // namespace deltaguard

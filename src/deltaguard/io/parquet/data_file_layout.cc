// DataFileWriter's layout decisions (data_file_layout_internal.h).

#include <arrow/array.h>
#include <arrow/type.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_set>

#include "deltaguard/io/parquet/data_file_layout_internal.h"

namespace deltaguard::internal {
namespace {

// Dictionary encoding pays only when values repeat: Parquet tries it for every
// column, hashing each value until the dictionary outgrows its page limit (1 MiB) and
// the column falls back to PLAIN, which makes nearly-unique columns (ids, measurements,
// timestamps) cost a hash-table insert per value for no gain. So the first batch is
// sampled (up to kDictionarySample rows); a primitive column (top level or inside
// structs) whose sample holds at least kDictionaryMinSample non-null values is written
// PLAIN when
//  - at least kDictionaryMaxDistinct of them are distinct, or
//  - the dictionary of a whole row group would still outgrow the page limit. The
//    number of distinct values D behind the sample is estimated as if values were
//    drawn uniformly: d distinct among n sampled values solves D * (1 - e^(-n/D)) = d
//    (the method-of-moments estimator); a row group of N rows then holds
//    D * (1 - e^(-N/D)) of them, each costing its PLAIN size in the dictionary page.
//    Skewed data looks like fewer distinct values, so the estimate errs towards
//    keeping the dictionary (the Parquet default). Such a column (say 100k customer
//    codes of 7 characters in 1M-row row groups) would hash the first few hundred
//    thousand values and then fall back anyway, and its file is about the same size
//    either way; 100k distinct 8-byte values (800 KB) keep their dictionary.
// Deterministic: it depends only on the first batch. Lists and maps keep the default.
constexpr int64_t kDictionarySample = 64 * 1024;
constexpr int64_t kDictionaryMinSample = 8 * 1024;
constexpr double kDictionaryMaxDistinct = 0.9;

// Bytes of one PLAIN value of a fixed-width Arrow type in the file: INT8/16 are stored as
// INT32, DECIMAL(p <= 9) / (p <= 18) as INT32 / INT64 (enable_store_decimal_as_integer),
// wider decimals in the fewest bytes that hold p digits.
int64_t PlainWidth(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
      return 4;
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256: {
      const int p = static_cast<const arrow::DecimalType&>(type).precision();
      if (p <= 9) return 4;
      if (p <= 18) return 8;
      return static_cast<int64_t>(std::ceil((p * std::log2(10.0) + 1) / 8));
    }
    default:
      return static_cast<const arrow::FixedWidthType&>(type).bit_width() / 8;
  }
}

struct DistinctSample {
  int64_t non_null = 0;
  int64_t distinct = 0;
  int64_t value_bytes = 0;  // PLAIN bytes of the distinct values
  bool sampled = false;     // false: type not sampled
};

// Distinct non-null values among the first `n` of `a`.
DistinctSample CountDistinct(const arrow::Array& a, int64_t n) {
  DistinctSample out;
  const arrow::ArrayData& d = *a.data();
  auto valid = [&a](int64_t i) { return a.null_count() == 0 || a.IsValid(i); };
  std::unordered_set<std::string_view> seen;
  seen.reserve(static_cast<size_t>(n));
  // Added to each value's Arrow size: PLAIN BYTE_ARRAY has a 4-byte length first;
  // fixed-width values differ by their Parquet physical type.
  int64_t length_prefix = 0;
  if (a.type_id() == arrow::Type::DICTIONARY) {
    // Its values (DataFileWriter::Write takes STRING columns dictionary-encoded).
    const auto& dict = static_cast<const arrow::DictionaryArray&>(a);
    if (dict.dictionary()->type_id() != arrow::Type::STRING) return out;
    const auto& values = static_cast<const arrow::StringArray&>(*dict.dictionary());
    for (int64_t i = 0; i < n; ++i) {
      if (!valid(i)) continue;
      ++out.non_null;
      seen.insert(values.GetView(dict.GetValueIndex(i)));
    }
    length_prefix = 4;
  } else if (arrow::is_base_binary_like(a.type_id())) {
    const auto& b = static_cast<const arrow::BinaryArray&>(a);
    const auto& lb = static_cast<const arrow::LargeBinaryArray&>(a);
    const bool large = arrow::is_large_binary_like(a.type_id());
    for (int64_t i = 0; i < n; ++i) {
      if (!valid(i)) continue;
      ++out.non_null;
      seen.insert(large ? lb.GetView(i) : b.GetView(i));
    }
    length_prefix = 4;
  } else {
    const auto* fixed = dynamic_cast<const arrow::FixedWidthType*>(a.type().get());
    if (fixed == nullptr || a.type_id() == arrow::Type::BOOL || d.buffers.size() < 2 ||
        !d.buffers[1]) {
      return out;
    }
    const int width = fixed->bit_width() / 8;
    const uint8_t* values = d.buffers[1]->data() + d.offset * width;
    length_prefix = PlainWidth(*a.type()) - width;  // the Parquet value's size
    for (int64_t i = 0; i < n; ++i) {
      if (!valid(i)) continue;
      ++out.non_null;
      seen.insert(std::string_view(reinterpret_cast<const char*>(values + i * width),
                                   static_cast<size_t>(width)));
    }
  }
  out.sampled = true;
  out.distinct = static_cast<int64_t>(seen.size());
  for (const auto& value : seen) {
    out.value_bytes += length_prefix + static_cast<int64_t>(value.size());
  }
  return out;
}

// Whether the dictionary of a row group of `row_group_rows` rows, shaped like the sample,
// would outgrow `limit` bytes (see above).
bool DictionaryOverflows(const DistinctSample& s, int64_t row_group_rows, int64_t limit) {
  if (s.distinct == 0) return false;
  if (s.non_null >= row_group_rows || s.distinct >= s.non_null) {
    return s.value_bytes > limit;
  }
  const double in_row_group = EstimateDistinct(s.non_null, s.distinct, row_group_rows);
  return in_row_group *
             (static_cast<double>(s.value_bytes) / static_cast<double>(s.distinct)) >
         static_cast<double>(limit);
}

void ChoosePlainColumns(const std::string& path, const arrow::Array& a,
                        int64_t row_group_rows, int64_t dictionary_limit,
                        parquet::WriterProperties::Builder* builder) {
  if (a.type_id() == arrow::Type::STRUCT) {
    const auto& st = static_cast<const arrow::StructArray&>(a);
    for (int i = 0; i < st.num_fields(); ++i) {
      ChoosePlainColumns(path + "." + st.struct_type()->field(i)->name(), *st.field(i),
                         row_group_rows, dictionary_limit, builder);
    }
    return;
  }
  const DistinctSample s = CountDistinct(a, std::min(a.length(), kDictionarySample));
  if (!s.sampled || s.non_null < kDictionaryMinSample) return;
  if (static_cast<double>(s.distinct) >=
          kDictionaryMaxDistinct * static_cast<double>(s.non_null) ||
      DictionaryOverflows(s, row_group_rows, dictionary_limit)) {
    builder->disable_dictionary(path);
  }
}

}  // namespace

std::shared_ptr<parquet::WriterProperties> WriterPropertiesFor(
    parquet::Compression::type codec, const arrow::RecordBatch& first,
    int64_t row_group_rows) {
  parquet::WriterProperties::Builder builder;
  builder.compression(codec)
      ->version(parquet::ParquetVersion::PARQUET_2_6)
      // Row groups are cut by DataFileWriter, never by the Parquet writer.
      ->max_row_group_length(std::numeric_limits<int64_t>::max())
      // DECIMAL(p <= 9) as INT32 and DECIMAL(p <= 18) as INT64, as Spark writes them
      // (parquet-format LogicalTypes "DECIMAL"); cheaper to encode and to compare than
      // 16-byte FIXED_LEN_BYTE_ARRAY, and every Delta reader reads all three.
      ->enable_store_decimal_as_integer();
  const int64_t dictionary_limit = builder.build()->dictionary_pagesize_limit();
  for (int i = 0; i < first.num_columns(); ++i) {
    ChoosePlainColumns(first.schema()->field(i)->name(), *first.column(i), row_group_rows,
                       dictionary_limit, &builder);
  }
  return builder.build();
}

double EstimateDistinct(int64_t sampled, int64_t distinct, int64_t rows) {
  if (distinct <= 0) return 0;
  if (distinct >= sampled || sampled >= rows) return static_cast<double>(distinct);
  const double n = static_cast<double>(sampled);
  const double d = static_cast<double>(distinct);
  // Expected distinct values among `draws` uniform draws from `population` values.
  auto expected = [](double population, double draws) {
    return population * -std::expm1(-draws / population);
  };
  // Bisection for D with expected(D, n) = d (it grows with D, towards n).
  double lo = d;
  double hi = d;
  while (expected(hi, n) < d && hi < 1e15) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 0.5; ++i) {
    const double mid = (lo + hi) / 2;
    (expected(mid, n) < d ? lo : hi) = mid;
  }
  return expected(hi, static_cast<double>(rows));
}

std::vector<int64_t> SplitLastRows(int64_t row_groups, int64_t submitted_rows,
                                   int64_t pending_rows, int num_streams,
                                   int64_t min_rows) {
  const int n = std::max(1, num_streams);
  std::vector<int64_t> rows(static_cast<size_t>(n), 0);
  if (pending_rows <= 0) return rows;
  // Finish time of each stream, in row groups, relative to the latest one: stream s got
  // its last row group `since` row groups ago (a stream that got none: all of them).
  std::vector<double> finish(static_cast<size_t>(n), 0.0);
  for (int s = 0; s < n; ++s) {
    const int64_t last = row_groups - 1 - s;  // row groups after s's first turn
    const int64_t since = row_groups == 0 ? 0 : last < 0 ? row_groups : last % n;
    finish[static_cast<size_t>(s)] = -static_cast<double>(since) / n;
  }
  const double group_rows = row_groups == 0 ? static_cast<double>(pending_rows)
                                            : static_cast<double>(submitted_rows) /
                                                  static_cast<double>(row_groups);
  const double work = static_cast<double>(pending_rows) / group_rows;
  std::vector<bool> active(static_cast<size_t>(n), true);
  while (true) {
    std::vector<double> lows;
    for (int s = 0; s < n; ++s) {
      if (active[static_cast<size_t>(s)]) lows.push_back(finish[static_cast<size_t>(s)]);
    }
    std::sort(lows.begin(), lows.end());
    // The water level: the k lowest streams filled up to the (k+1)-th, or all of them.
    double level = lows[0] + work;
    double below = 0;
    for (size_t k = 1; k <= lows.size(); ++k) {
      below += lows[k - 1];
      level = (work + below) / static_cast<double>(k);
      if (k == lows.size() || level <= lows[k]) break;
    }
    int latest = -1;  // the latest active stream whose share is under the minimum
    int64_t sharing = 0;
    for (int s = 0; s < n; ++s) {
      const auto i = static_cast<size_t>(s);
      rows[i] = 0;
      if (!active[i] || level <= finish[i]) continue;
      rows[i] = static_cast<int64_t>((level - finish[i]) * group_rows);
      sharing += rows[i] > 0;
      if (rows[i] < min_rows &&
          (latest < 0 || finish[i] >= finish[static_cast<size_t>(latest)])) {
        latest = s;
      }
    }
    if (latest < 0 || sharing <= 1) break;
    active[static_cast<size_t>(latest)] = false;
  }
  int64_t assigned = 0;
  for (int64_t r : rows) assigned += r;
  const auto first = static_cast<size_t>(std::min_element(finish.begin(), finish.end()) -
                                         finish.begin());
  rows[first] += pending_rows - assigned;
  return rows;
}

}  // namespace deltaguard::internal

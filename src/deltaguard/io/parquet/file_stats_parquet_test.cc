// Differential tests: statistics with bounds from the Parquet footer
// (FileStatsOptions::bounds_from_parquet) must be byte-identical to the reference path
// that compares every value in the batches.

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/io/memory.h>
#include <arrow/util/decimal.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/arrow/writer.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/properties.h>
#include <parquet/statistics.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/data_file_writer.h"
#include "deltaguard/io/parquet/file_stats.h"
#include "deltaguard/protocol/column_mapping.h"
#include "testing/matchers.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

// Random rows for any schema of the supported types. Columns named *nan* / *inf* get
// NaN / infinities now and then; *allnull* is always null; *long* strings are often
// longer than Parquet's max_statistics_size; *bad* strings hold invalid UTF-8.
class RowGen {
 public:
  explicit RowGen(uint64_t seed) : rng_(seed) {}

  std::shared_ptr<arrow::RecordBatch> Batch(const std::shared_ptr<arrow::Schema>& schema,
                                            int64_t rows) {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& field : schema->fields()) {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      EXPECT_TRUE(
          arrow::MakeBuilder(arrow::default_memory_pool(), field->type(), &builder).ok());
      for (int64_t r = 0; r < rows; ++r) Append(field->name(), builder.get(), true);
      std::shared_ptr<arrow::Array> array;
      EXPECT_TRUE(builder->Finish(&array).ok());
      columns.push_back(array);
    }
    return arrow::RecordBatch::Make(schema, rows, columns);
  }

 private:
  bool OneIn(int n) { return rng_() % static_cast<uint64_t>(n) == 0; }
  int64_t Range(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }
  template <typename T>
  T Int() {
    if (OneIn(20))
      return OneIn(2) ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
    return static_cast<T>(Range(-1000, 1000) * (OneIn(3) ? 1 : 997));
  }

  std::string Text(const std::string& name) {
    static const char* kPieces[] = {"a",
                                    "b",
                                    "z",
                                    "A",
                                    "\xC3\xA9" /* é */,
                                    "\xE4\xB8\xAD" /* 中 */,
                                    "\xF0\x9F\x98\x80" /* 😀 */,
                                    "\xF4\x8F\xBF\xBF" /* U+10FFFF */,
                                    "\x7F",
                                    " "};
    std::string out;
    int64_t n = Range(0, 45);
    if (name.find("long") != std::string::npos && OneIn(4)) n = Range(900, 1500);
    const bool maxed = OneIn(6);  // runs of U+10FFFF exercise the max tie-breaker
    for (int64_t i = 0; i < n; ++i) {
      out += maxed && i > 2 ? kPieces[7] : kPieces[Range(0, 9)];
    }
    if (name.find("bad") != std::string::npos && OneIn(5)) {
      out.insert(static_cast<size_t>(Range(0, static_cast<int64_t>(out.size()))),
                 OneIn(2) ? "\xFF" : "\xC3");
    }
    return out;
  }

  void Append(const std::string& name, arrow::ArrayBuilder* b, bool parent_valid) {
    const auto& type = b->type();
    const bool null = name.find("allnull") != std::string::npos || OneIn(8);
    switch (type->id()) {
      case arrow::Type::STRUCT: {
        auto* sb = static_cast<arrow::StructBuilder*>(b);
        const bool valid = !null;
        EXPECT_TRUE(sb->Append(valid).ok());
        // Children get values under a null struct too: they must count as null.
        for (int i = 0; i < sb->num_fields(); ++i)
          Append(type->field(i)->name(), sb->field_builder(i), parent_valid && valid);
        return;
      }
      case arrow::Type::LIST: {
        auto* lb = static_cast<arrow::ListBuilder*>(b);
        if (null) {
          EXPECT_TRUE(lb->AppendNull().ok());
          return;
        }
        EXPECT_TRUE(lb->Append().ok());
        for (int64_t i = Range(0, 3); i > 0; --i)
          Append("element", lb->value_builder(), true);
        return;
      }
      default:
        break;
    }
    if (null) {
      EXPECT_TRUE(b->AppendNull().ok());
      return;
    }
    arrow::Status st;
    switch (type->id()) {
      case arrow::Type::BOOL:
        st = static_cast<arrow::BooleanBuilder*>(b)->Append(OneIn(2));
        break;
      case arrow::Type::INT8:
        st = static_cast<arrow::Int8Builder*>(b)->Append(Int<int8_t>());
        break;
      case arrow::Type::INT16:
        st = static_cast<arrow::Int16Builder*>(b)->Append(Int<int16_t>());
        break;
      case arrow::Type::INT32:
        st = static_cast<arrow::Int32Builder*>(b)->Append(Int<int32_t>());
        break;
      case arrow::Type::INT64:
        st = static_cast<arrow::Int64Builder*>(b)->Append(Int<int64_t>());
        break;
      case arrow::Type::DATE32:
        st = static_cast<arrow::Date32Builder*>(b)->Append(
            static_cast<int32_t>(Range(-800000, 800000)));
        break;
      case arrow::Type::TIMESTAMP:  // sub-millisecond digits test the flooring
        st = static_cast<arrow::TimestampBuilder*>(b)->Append(
            Range(-4000000000000000LL, 4000000000000000LL));
        break;
      case arrow::Type::FLOAT:
      case arrow::Type::DOUBLE: {
        double v = static_cast<double>(Range(-1000000, 1000000)) / 64.0;
        if (OneIn(10)) v = OneIn(2) ? 0.0 : -0.0;
        if (name.find("nan") != std::string::npos && OneIn(40))
          v = std::numeric_limits<double>::quiet_NaN();
        if (name.find("inf") != std::string::npos && OneIn(40))
          v = OneIn(2) ? INFINITY : -INFINITY;
        st = type->id() == arrow::Type::FLOAT
                 ? static_cast<arrow::FloatBuilder*>(b)->Append(static_cast<float>(v))
                 : static_cast<arrow::DoubleBuilder*>(b)->Append(v);
        break;
      }
      case arrow::Type::DECIMAL128: {
        const auto& dt = static_cast<const arrow::Decimal128Type&>(*type);
        arrow::Decimal128 limit = arrow::Decimal128::GetMaxValue(dt.precision());
        arrow::Decimal128 v;
        if (OneIn(15)) {
          v = OneIn(2) ? limit : -limit;
        } else if (dt.precision() > 18) {
          // |v| < 2^(64 + bits) <= 10^precision: values beyond the precision would be
          // cut to the column's FIXED_LEN_BYTE_ARRAY width by the Parquet writer.
          const int bits = std::min(40, static_cast<int>(dt.precision() * 3.32) - 65);
          v = arrow::Decimal128(Range(-(1LL << bits), (1LL << bits) - 1), rng_());
        } else {
          int64_t mod = 1;
          for (int i = 0; i < dt.precision(); ++i) mod *= 10;
          v = arrow::Decimal128(
              static_cast<int64_t>(rng_() % static_cast<uint64_t>(mod)) *
              (OneIn(2) ? -1 : 1));
        }
        st = static_cast<arrow::Decimal128Builder*>(b)->Append(v);
        break;
      }
      case arrow::Type::STRING:
        st = static_cast<arrow::StringBuilder*>(b)->Append(Text(name));
        break;
      case arrow::Type::BINARY:
        st = static_cast<arrow::BinaryBuilder*>(b)->Append(Text("bad"));
        break;
      default:
        ADD_FAILURE() << "no generator for " << type->ToString();
        st = b->AppendNull();
    }
    EXPECT_TRUE(st.ok()) << st.ToString();
  }

  std::mt19937_64 rng_;
};

constexpr char kEveryType[] =
    "by TINYINT, sh SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, dnan DOUBLE, "
    "finf FLOAT, dec4 DECIMAL(9,2), dec8 DECIMAL(18,3), dec16 DECIMAL(38,5), "
    "decneg DECIMAL(5,5), dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, s STRING, "
    "slong STRING, sbad STRING, iallnull INT, sallnull STRING, flag BOOLEAN, bin BINARY, "
    "st STRUCT<a: INT, s: STRING, inner: STRUCT<x: BIGINT, dd: DECIMAL(10,0), "
    "t: TIMESTAMP>>, arr ARRAY<INT>, tail BIGINT";

// Write `batches` twice through DataFileWriter, with and without Parquet bounds, and
// return both files lists (same rows, so the same files).
struct Pair {
  std::vector<WrittenFile> reference, parquet;
};

Pair WriteBoth(const SchemaRef& schema, ColumnMappingMode mode,
               const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
               DataFileWriterOptions options) {
  Pair out;
  for (bool from_parquet : {false, true}) {
    deltaguard::testing::TempDir dir;
    options.stats.bounds_from_parquet = from_parquet;
    auto writer = DataFileWriter::Make(MakeLocalFileSystem(), dir.path(), schema, mode,
                                       {}, options);
    EXPECT_TRUE(writer) << writer.error().ToString();
    if (!writer) return out;
    for (const auto& b : batches) {
      auto st = (*writer)->Write(*b);
      EXPECT_TRUE(st) << st.error().ToString();
    }
    auto files = (*writer)->Finish();
    EXPECT_TRUE(files) << files.error().ToString();
    if (files) (from_parquet ? out.parquet : out.reference) = *files;
  }
  return out;
}

void ExpectSameStats(const Pair& p) {
  ASSERT_EQ(p.reference.size(), p.parquet.size());
  ASSERT_FALSE(p.reference.empty());
  for (size_t i = 0; i < p.reference.size(); ++i) {
    EXPECT_EQ(p.reference[i].num_records, p.parquet[i].num_records) << "file " << i;
    EXPECT_EQ(p.reference[i].stats_json, p.parquet[i].stats_json) << "file " << i;
  }
}

std::vector<std::shared_ptr<arrow::RecordBatch>> RandomBatches(const SchemaRef& schema,
                                                               uint64_t seed, int count,
                                                               int64_t rows) {
  auto arrow_schema = ToArrowSchema(*schema);
  EXPECT_TRUE(arrow_schema);
  RowGen gen(seed);
  std::vector<std::shared_ptr<arrow::RecordBatch>> out;
  for (int i = 0; i < count; ++i) out.push_back(gen.Batch(*arrow_schema, rows));
  return out;
}

TEST(FileStatsParquetTest, WriterStatsAreByteIdenticalForEveryTypeAndLayout) {
  auto schema = Ddl(kEveryType);
  for (uint64_t seed : {1u, 2u, 3u}) {
    auto batches = RandomBatches(schema, seed, 5, 97);
    DataFileWriterOptions many_groups;  // one file of many row groups
    many_groups.row_group_rows = 40;
    many_groups.file_streams = 1;
    many_groups.stats.num_indexed_cols = -1;
    Pair p = WriteBoth(schema, ColumnMappingMode::kNone, batches, many_groups);
    ASSERT_NO_FATAL_FAILURE(ExpectSameStats(p));
    ASSERT_EQ(p.parquet.size(), 1u);
    // Not vacuous: bounds of integers, decimals, timestamps and strings are present.
    EXPECT_THAT(p.parquet[0].stats_json, HasSubstr(R"("maxValues":{"by":127,"sh":)"));
    EXPECT_THAT(p.parquet[0].stats_json, HasSubstr(R"("dec16":)"));
    EXPECT_THAT(p.parquet[0].stats_json, HasSubstr(R"("inner":{"x":)"));

    DataFileWriterOptions rolling;  // several files, two streams, short prefixes
    rolling.row_group_rows = 64;
    rolling.target_file_size_bytes = 24 << 10;
    rolling.stats.num_indexed_cols = -1;
    rolling.stats.string_prefix_length = 3;
    p = WriteBoth(schema, ColumnMappingMode::kNone, batches, rolling);
    ASSERT_NO_FATAL_FAILURE(ExpectSameStats(p));
    EXPECT_GT(p.parquet.size(), 1u);

    DataFileWriterOptions selected;  // delta.dataSkippingStatsColumns
    selected.row_group_rows = 50;
    selected.stats.stats_columns =
        std::vector<std::string>{"st.inner", "slong", "DEC8", "ts"};
    ASSERT_NO_FATAL_FAILURE(
        ExpectSameStats(WriteBoth(schema, ColumnMappingMode::kNone, batches, selected)));

    DataFileWriterOptions first_leaves;  // default 32 leaves, then 5
    first_leaves.row_group_rows = 100;
    ASSERT_NO_FATAL_FAILURE(ExpectSameStats(
        WriteBoth(schema, ColumnMappingMode::kNone, batches, first_leaves)));
    first_leaves.stats.num_indexed_cols = 5;
    ASSERT_NO_FATAL_FAILURE(ExpectSameStats(
        WriteBoth(schema, ColumnMappingMode::kNone, batches, first_leaves)));
  }
}

TEST(FileStatsParquetTest, ColumnMappingNameAndIdAreByteIdentical) {
  auto mapped = AssignColumnMapping(*Ddl(kEveryType), 0, false);
  ASSERT_TRUE(mapped) << mapped.error().ToString();
  auto batches = RandomBatches(mapped->schema, 7, 4, 120);
  for (ColumnMappingMode mode : {ColumnMappingMode::kName, ColumnMappingMode::kId}) {
    DataFileWriterOptions options;
    options.row_group_rows = 70;
    options.stats.num_indexed_cols = -1;
    Pair p = WriteBoth(mapped->schema, mode, batches, options);
    ASSERT_NO_FATAL_FAILURE(ExpectSameStats(p));
    EXPECT_THAT(p.parquet[0].stats_json, HasSubstr(R"("minValues":{"col-)"));
  }
}

// The collector on its own, over a file written with non-default Parquet properties:
// decimals stored as INT32/INT64, and bounds longer than 64 bytes dropped by the writer.
TEST(FileStatsParquetTest, BoundsComeFromTheFooterIncludingDroppedLongStrings) {
  auto schema = Ddl(
      "i INT, l BIGINT, dec4 DECIMAL(9,2), dec8 DECIMAL(18,3), dec16 DECIMAL(30,1), "
      "dt DATE, ts TIMESTAMP, slong STRING, d DOUBLE, st STRUCT<x: INT, slong: STRING>");
  auto arrow_schema = ToArrowSchema(*schema);
  ASSERT_TRUE(arrow_schema);
  std::vector<std::shared_ptr<arrow::Field>> optional;
  for (const auto& f : (*arrow_schema)->fields())
    optional.push_back(f->WithNullable(true));
  auto file_schema = arrow::schema(optional);
  auto properties = parquet::WriterProperties::Builder()
                        .enable_store_decimal_as_integer()
                        ->max_statistics_size(64)
                        ->build();
  auto arrow_properties = parquet::default_arrow_writer_properties();
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  auto writer =
      parquet::arrow::FileWriter::Open(*file_schema, arrow::default_memory_pool(), sink,
                                       properties, arrow_properties)
          .ValueOrDie();
  std::shared_ptr<parquet::SchemaDescriptor> descr;
  ASSERT_TRUE(parquet::arrow::ToParquetSchema(file_schema.get(), *properties,
                                              *arrow_properties, &descr)
                  .ok());

  FileStatsOptions options;
  auto reference = FileStatsCollector::Make(schema, ColumnMappingMode::kNone, options);
  auto derived = FileStatsCollector::Make(schema, ColumnMappingMode::kNone, options);
  auto footer_only = FileStatsCollector::Make(schema, ColumnMappingMode::kNone, options);
  ASSERT_TRUE(reference && derived && footer_only);
  // Every leaf with min/max but the double.
  EXPECT_EQ((*derived)->UseParquetBounds(*descr, *properties), 10);
  EXPECT_EQ((*footer_only)->UseParquetBounds(*descr, *properties), 10);

  RowGen gen(11);
  for (int rg = 0; rg < 6; ++rg) {
    auto batch = gen.Batch(file_schema, 60);
    ASSERT_TRUE(writer->NewBufferedRowGroup().ok());  // one row group per batch
    ASSERT_TRUE(writer->WriteRecordBatch(*batch).ok());
    ASSERT_TRUE((*reference)->Update(*batch));
    ASSERT_TRUE((*derived)->Update(*batch));
  }
  ASSERT_TRUE(writer->Close().ok());
  auto metadata = writer->metadata();
  ASSERT_NE(metadata, nullptr);
  ASSERT_EQ(metadata->num_row_groups(), 6);
  // The long strings really lost some chunk bounds, and decimals really are integers.
  int dropped = 0;
  for (int rg = 0; rg < metadata->num_row_groups(); ++rg) {
    auto stats = metadata->RowGroup(rg)->ColumnChunk(7)->encoded_statistics();
    dropped += !stats->has_min + !stats->has_max;
  }
  EXPECT_GT(dropped, 0);
  EXPECT_EQ(metadata->schema()->Column(2)->physical_type(), parquet::Type::INT32);
  EXPECT_EQ(metadata->schema()->Column(3)->physical_type(), parquet::Type::INT64);

  (*derived)->AddParquetBounds(*metadata);
  (*footer_only)->AddParquetBounds(*metadata);
  const std::string expected = (*reference)->ToJson();
  EXPECT_EQ((*derived)->ToJson(), expected);
  EXPECT_THAT(expected, HasSubstr(R"("slong":)"));
  // Without any batch, the integer-like bounds come from the footer alone.
  const std::string footer = (*footer_only)->ToJson();
  auto between = [](const std::string& s, const std::string& from,
                    const std::string& to) {
    size_t a = s.find(from);
    size_t b = s.find(to);
    return a == std::string::npos || b == std::string::npos ? std::string()
                                                            : s.substr(a, b - a);
  };
  // (The footer-only minValues end at ts: the string bounds that the writer dropped
  // were never folded in, so slong rightly has none, and d is on the batch path.)
  EXPECT_EQ(between(footer, R"("minValues")", R"(,"st")"),
            between(expected, R"("minValues")", R"(,"slong")"));
  EXPECT_THAT(footer, HasSubstr(R"("minValues":{"i":-2147483648,"l":)"));
  EXPECT_THAT(footer, ::testing::Not(HasSubstr(R"("slong":")")));
}

TEST(FileStatsParquetTest, ColumnsWithoutFooterBoundsStayCorrect) {
  auto schema = Ddl("i INT, s STRING");
  auto arrow_schema = ToArrowSchema(*schema);
  ASSERT_TRUE(arrow_schema);
  auto no_i_stats = parquet::WriterProperties::Builder().disable_statistics("i")->build();
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  auto writer = parquet::arrow::FileWriter::Open(
                    **arrow_schema, arrow::default_memory_pool(), sink, no_i_stats)
                    .ValueOrDie();
  auto batch = testing::Rows(schema, R"([{"i":3,"s":"q"},{"i":-1,"s":"b"}])");
  ASSERT_TRUE(writer->WriteRecordBatch(*batch).ok());
  ASSERT_TRUE(writer->Close().ok());
  auto metadata = writer->metadata();

  // Statistics disabled for i: i stays on the batch path.
  std::shared_ptr<parquet::SchemaDescriptor> descr;
  ASSERT_TRUE(
      parquet::arrow::ToParquetSchema(arrow_schema->get(), *no_i_stats, &descr).ok());
  auto collector = FileStatsCollector::Make(schema, ColumnMappingMode::kNone, {});
  ASSERT_TRUE(collector);
  EXPECT_EQ((*collector)->UseParquetBounds(*descr, *no_i_stats), 1);
  ASSERT_TRUE((*collector)->Update(*batch));
  (*collector)->AddParquetBounds(*metadata);
  EXPECT_EQ((*collector)->ToJson(),
            R"({"numRecords":2,"minValues":{"i":-1,"s":"b"},"maxValues":{"i":3,"s":"q"},)"
            R"("nullCount":{"i":0,"s":0}})");

  // A footer without the bounds it was expected to have: no bounds for i rather than
  // bounds from incomplete data.
  auto expecting = FileStatsCollector::Make(schema, ColumnMappingMode::kNone, {});
  ASSERT_TRUE(expecting);
  EXPECT_EQ((*expecting)->UseParquetBounds(*descr, *parquet::default_writer_properties()),
            2);
  ASSERT_TRUE((*expecting)->Update(*batch));
  (*expecting)->AddParquetBounds(*metadata);
  EXPECT_EQ((*expecting)->ToJson(),
            R"({"numRecords":2,"minValues":{"s":"b"},"maxValues":{"s":"q"},)"
            R"("nullCount":{"i":0,"s":0}})");
}

}  // namespace
}  // namespace deltaguard

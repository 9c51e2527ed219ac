#include "deltaguard/io/parquet/file_stats.h"

#include <arrow/array.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/io/parquet/partition_value.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

std::string Stats(const SchemaRef& schema, const std::vector<std::string>& batches,
                  FileStatsOptions options = {},
                  ColumnMappingMode mode = ColumnMappingMode::kNone) {
  auto collector = FileStatsCollector::Make(schema, mode, options);
  EXPECT_TRUE(collector) << collector.error().ToString();
  for (const auto& json : batches) {
    auto st = (*collector)->Update(*Rows(schema, json));
    EXPECT_TRUE(st) << st.error().ToString();
  }
  return (*collector)->ToJson();
}

TEST(FileStatsTest, EveryTypeWithNullsAndNesting) {
  auto schema = Ddl(
      "i INT, l BIGINT, s STRING, d DOUBLE, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, "
      "dec DECIMAL(5,2), b BOOLEAN, bin BINARY, st STRUCT<a: INT, b: STRING>, "
      "arr ARRAY<INT>, m MAP<STRING, INT>, n INT, by TINYINT, sh SMALLINT, f FLOAT");
  std::string rows = R"([
    {"i":1,"l":10,"s":"b","d":1.5,"dt":19723,"ts":1704110400123000,
     "ntz":1704110400123999,"dec":"12.30","b":true,"bin":"x","st":{"a":5,"b":"z"},
     "arr":[1],"m":[["k",1]],"n":null,"by":-128,"sh":300,"f":0.1},
    {"i":-3,"l":null,"s":"a","d":-2.0,"dt":0,"ts":0,"ntz":-1,"dec":"-0.50",
     "b":false,"bin":null,"st":null,"arr":null,"m":null,"n":null,"by":127,"sh":null,
     "f":null},
    {"i":null,"l":null,"s":null,"d":null,"dt":null,"ts":null,"ntz":null,"dec":null,
     "b":null,"bin":null,"st":{"a":null,"b":"y"},"arr":[],"m":[],"n":null,"by":null,
     "sh":null,"f":null}])";
  EXPECT_EQ(
      Stats(schema, {rows}),
      R"({"numRecords":3,)"
      R"("minValues":{"i":-3,"l":10,"s":"a","d":-2.0,"dt":"1970-01-01",)"
      R"("ts":"1970-01-01T00:00:00.000Z","ntz":"1969-12-31T23:59:59.999","dec":-0.50,)"
      R"("st":{"a":5,"b":"y"},"by":-128,"sh":300,"f":0.1},)"
      R"("maxValues":{"i":1,"l":10,"s":"b","d":1.5,"dt":"2024-01-01",)"
      R"("ts":"2024-01-01T12:00:00.123Z","ntz":"2024-01-01T12:00:00.123","dec":12.30,)"
      R"("st":{"a":5,"b":"z"},"by":127,"sh":300,"f":0.1},)"
      R"("nullCount":{"i":1,"l":2,"s":1,"d":1,"dt":1,"ts":1,"ntz":1,"dec":1,"b":1,)"
      R"("bin":2,"st":{"a":2,"b":1},"arr":1,"m":1,"n":3,"by":1,"sh":2,"f":2}})");
}

TEST(FileStatsTest, AccumulatesAcrossBatches) {
  auto schema = Ddl("x BIGINT, s STRING");
  EXPECT_EQ(Stats(schema, {R"([{"x":5,"s":"m"}])",
                           R"([{"x":-7,"s":null},{"x":9,"s":"z"}])", R"([])"}),
            R"({"numRecords":3,"minValues":{"x":-7,"s":"m"},"maxValues":{"x":9,"s":"z"},)"
            R"("nullCount":{"x":0,"s":1}})");
}

// A dictionary-encoded STRING column counts the values its rows reference: not the
// dictionary's unused entries, and NULL indices as NULLs.
TEST(FileStatsTest, DictionaryStringsCountReferencedValuesOnly) {
  auto schema = Ddl("s STRING");
  auto collector = FileStatsCollector::Make(schema, ColumnMappingMode::kNone, {});
  ASSERT_TRUE(collector);
  auto values =
      arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["zz", "m", "b", "a"])");
  auto indices = arrow::json::ArrayFromJSONString(arrow::int32(), "[1, null, 2, 1]");
  auto dict = arrow::DictionaryArray::FromArrays(
      arrow::dictionary(arrow::int32(), arrow::utf8()), *indices, *values);
  ASSERT_TRUE(dict.ok());
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("s", (*dict)->type())}), 4, {*dict});
  ASSERT_TRUE((*collector)->Update(*batch));
  EXPECT_EQ((*collector)->ToJson(),
            R"({"numRecords":4,"minValues":{"s":"b"},"maxValues":{"s":"m"},)"
            R"("nullCount":{"s":1}})");
  auto bad = arrow::json::ArrayFromJSONString(arrow::int32(), "[7]");
  // Unchecked, as a corrupt batch would come.
  auto out_of_range = std::make_shared<arrow::DictionaryArray>(
      arrow::dictionary(arrow::int32(), arrow::utf8()), *bad, *values);
  auto st =
      (*collector)->Update(*arrow::RecordBatch::Make(batch->schema(), 1, {out_of_range}));
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("out of range"), std::string::npos);
}

TEST(FileStatsTest, NoRowsGivesEmptyObjects) {
  auto schema = Ddl("x INT");
  EXPECT_EQ(Stats(schema, {}),
            R"({"numRecords":0,"minValues":{},"maxValues":{},"nullCount":{"x":0}})");
}

TEST(FileStatsTest, NumIndexedColsCountsLeavesInSchemaOrder) {
  auto schema = Ddl("a INT, s STRUCT<x: INT, y: INT>, arr ARRAY<INT>, c INT");
  std::string rows = R"([{"a":1,"s":{"x":2,"y":3},"arr":[1],"c":4}])";
  FileStatsOptions two;
  two.num_indexed_cols = 2;
  EXPECT_EQ(Stats(schema, {rows}, two),
            R"({"numRecords":1,"minValues":{"a":1,"s":{"x":2}},)"
            R"("maxValues":{"a":1,"s":{"x":2}},"nullCount":{"a":0,"s":{"x":0}}})");
  FileStatsOptions four;
  four.num_indexed_cols = 4;  // the array is one leaf; c is the fifth
  EXPECT_EQ(Stats(schema, {rows}, four),
            R"({"numRecords":1,"minValues":{"a":1,"s":{"x":2,"y":3}},)"
            R"("maxValues":{"a":1,"s":{"x":2,"y":3}},)"
            R"("nullCount":{"a":0,"s":{"x":0,"y":0},"arr":0}})");
  FileStatsOptions all;
  all.num_indexed_cols = -1;
  EXPECT_NE(Stats(schema, {rows}, all).find(R"("arr":0,"c":0)"), std::string::npos);
  FileStatsOptions none;
  none.num_indexed_cols = 0;
  EXPECT_EQ(Stats(schema, {rows}, none),
            R"({"numRecords":1,"minValues":{},"maxValues":{},"nullCount":{}})");
}

TEST(FileStatsTest, DefaultIndexesFirst32Leaves) {
  std::string ddl;
  std::string row = "[{";
  for (int i = 0; i < 34; ++i) {
    ddl += (i ? ", c" : "c") + std::to_string(i) + " INT";
    row += (i ? ",\"c" : "\"c") + std::to_string(i) + "\":" + std::to_string(i);
  }
  row += "}]";
  std::string stats = Stats(Ddl(ddl), {row});
  EXPECT_NE(stats.find(R"("c31":0)"), std::string::npos) << stats;
  EXPECT_EQ(stats.find(R"("c32")"), std::string::npos) << stats;
}

TEST(FileStatsTest, StatsColumnsSelectExactlyTheNamedPaths) {
  auto schema = Ddl("a INT, s STRUCT<x: INT, y: INT>, `c.d` INT, e INT");
  std::string rows = R"([{"a":1,"s":{"x":2,"y":3},"c.d":4,"e":5}])";
  FileStatsOptions options;
  options.num_indexed_cols = 0;  // ignored when stats_columns is set
  options.stats_columns = std::vector<std::string>{"E", "s.Y", "`c.d`", "nope"};
  EXPECT_EQ(Stats(schema, {rows}, options),
            R"({"numRecords":1,"minValues":{"s":{"y":3},"c.d":4,"e":5},)"
            R"("maxValues":{"s":{"y":3},"c.d":4,"e":5},)"
            R"("nullCount":{"s":{"y":0},"c.d":0,"e":0}})");
  options.stats_columns = std::vector<std::string>{"s"};  // a struct: all its leaves
  EXPECT_EQ(Stats(schema, {rows}, options),
            R"({"numRecords":1,"minValues":{"s":{"x":2,"y":3}},)"
            R"("maxValues":{"s":{"x":2,"y":3}},"nullCount":{"s":{"x":0,"y":0}}})");
  options.stats_columns = std::vector<std::string>{"`a"};
  auto bad = FileStatsCollector::Make(schema, ColumnMappingMode::kNone, options);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
}

TEST(FileStatsTest, StringsAreTruncatedWithTieBreaker) {
  auto schema = Ddl("s STRING");
  std::string long_a(40, 'a');
  std::string long_b = std::string(32, 'b') + "cdef";
  std::string stats =
      Stats(schema, {R"([{"s":")" + long_a + R"("},{"s":")" + long_b + R"("}])"});
  EXPECT_EQ(stats, R"({"numRecords":2,"minValues":{"s":")" + std::string(32, 'a') +
                       R"("},"maxValues":{"s":")" + std::string(32, 'b') +
                       "\xF4\x8F\xBF\xBF" + R"("},"nullCount":{"s":0}})");
  FileStatsOptions short_prefix;
  short_prefix.string_prefix_length = 3;
  EXPECT_EQ(Stats(schema, {R"([{"s":"abc"},{"s":"abcd"}])"}, short_prefix),
            R"({"numRecords":2,"minValues":{"s":"abc"},"maxValues":{"s":"abc)"
            "\xF4\x8F\xBF\xBF"
            R"("},"nullCount":{"s":0}})");
}

TEST(FileStatsTest, TruncationCountsCodePoints) {
  // "é" is 2 bytes, "😀" (U+1F600) 4 bytes (a surrogate pair in Java).
  std::string s = "\xC3\xA9\xF0\x9F\x98\x80xyz";
  EXPECT_EQ(TruncateStringMin(s, 2), "\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(TruncateStringMin(s, 1), "\xC3\xA9");
  EXPECT_EQ(TruncateStringMin(s, 10), s);
  EXPECT_EQ(TruncateStringMax(s, 2), "\xC3\xA9\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF");
  EXPECT_EQ(TruncateStringMax(s, 5), s);
  // A U+10FFFF at the cut is kept and the bound is placed after it.
  std::string with_max =
      "ab\xF4\x8F\xBF\xBF"
      "c";
  EXPECT_EQ(TruncateStringMax(with_max, 2), "ab\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF");
  // Only U+10FFFF within 2 x prefix: no bound can be built.
  std::string all_max = "ab";
  for (int i = 0; i < 4; ++i) all_max += "\xF4\x8F\xBF\xBF";
  EXPECT_EQ(TruncateStringMax(all_max, 2), std::nullopt);
  // ...unless the string ends there.
  EXPECT_EQ(TruncateStringMax("ab\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF", 2),
            "ab\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF");
}

TEST(FileStatsTest, NanOrInfinityDropsMinMaxOfThatColumnOnly) {
  auto schema = Ddl("d DOUBLE, f FLOAT, x INT");
  auto collector = FileStatsCollector::Make(schema, ColumnMappingMode::kNone, {});
  ASSERT_TRUE(collector);
  auto d = arrow::json::ArrayFromJSONString(arrow::float64(), "[1.0, null, 2.0]");
  auto f = arrow::json::ArrayFromJSONString(arrow::float32(), "[1.0, 0.5, 2.0]");
  auto x = arrow::json::ArrayFromJSONString(arrow::int32(), "[1, 2, 3]");
  ASSERT_TRUE(d.ok() && f.ok() && x.ok());
  // Patch in a NaN (JSON cannot express it).
  auto d_nan = arrow::json::ArrayFromJSONString(arrow::float64(), "[1.0, null, 2.0]");
  auto* raw = const_cast<double*>((*d_nan)->data()->GetValues<double>(1));
  raw[2] = std::numeric_limits<double>::quiet_NaN();
  auto f_inf = arrow::json::ArrayFromJSONString(arrow::float32(), "[1.0, 0.5, 2.0]");
  auto* fraw = const_cast<float*>((*f_inf)->data()->GetValues<float>(1));
  fraw[0] = -std::numeric_limits<float>::infinity();
  auto arrow_schema = *ToArrowSchema(*schema);
  ASSERT_TRUE(
      (*collector)->Update(*arrow::RecordBatch::Make(arrow_schema, 3, {*d, *f, *x})));
  ASSERT_TRUE(
      (*collector)
          ->Update(*arrow::RecordBatch::Make(arrow_schema, 3, {*d_nan, *f_inf, *x})));
  EXPECT_EQ((*collector)->ToJson(),
            R"({"numRecords":6,"minValues":{"x":1},"maxValues":{"x":3},)"
            R"("nullCount":{"d":2,"f":0,"x":0}})");
}

TEST(FileStatsTest, ColumnMappingKeysByPhysicalName) {
  auto schema = ParseSchemaJson(
      R"({"type":"struct","fields":[)"
      R"({"name":"id","type":"long","nullable":true,"metadata":)"
      R"({"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-1"}},)"
      R"({"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"string",)"
      R"("nullable":true,"metadata":{"delta.columnMapping.id":3,)"
      R"("delta.columnMapping.physicalName":"col-3"}}]},"nullable":true,"metadata":)"
      R"({"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-2"}}]})");
  ASSERT_TRUE(schema) << schema.error().ToString();
  std::string rows = R"([{"id":7,"s":{"x":"q"}}])";
  EXPECT_EQ(Stats(*schema, {rows}, {}, ColumnMappingMode::kName),
            R"({"numRecords":1,"minValues":{"col-1":7,"col-2":{"col-3":"q"}},)"
            R"("maxValues":{"col-1":7,"col-2":{"col-3":"q"}},)"
            R"("nullCount":{"col-1":0,"col-2":{"col-3":0}}})");
  // stats_columns names logical paths even under column mapping.
  FileStatsOptions options;
  options.stats_columns = std::vector<std::string>{"s.x"};
  EXPECT_EQ(Stats(*schema, {rows}, options, ColumnMappingMode::kId),
            R"({"numRecords":1,"minValues":{"col-2":{"col-3":"q"}},)"
            R"("maxValues":{"col-2":{"col-3":"q"}},"nullCount":{"col-2":{"col-3":0}}})");
  EXPECT_EQ(Stats(*schema, {rows}, {}, ColumnMappingMode::kNone),
            R"({"numRecords":1,"minValues":{"id":7,"s":{"x":"q"}},)"
            R"("maxValues":{"id":7,"s":{"x":"q"}},"nullCount":{"id":0,"s":{"x":0}}})");
}

TEST(FileStatsTest, JsonEscapesStringsAndKeys) {
  auto schema = Ddl("`we\"ird` STRING");
  EXPECT_EQ(Stats(schema, {R"([{"we\"ird":"a\"b\n"}])"}),
            R"({"numRecords":1,"minValues":{"we\"ird":"a\"b\n"},)"
            R"("maxValues":{"we\"ird":"a\"b\n"},"nullCount":{"we\"ird":0}})");
}

TEST(FileStatsTest, InvalidOptions) {
  auto schema = Ddl("x INT");
  FileStatsOptions bad_cols;
  bad_cols.num_indexed_cols = -2;
  EXPECT_EQ(
      FileStatsCollector::Make(schema, ColumnMappingMode::kNone, bad_cols).error().code,
      ErrorCode::kInvalidArgument);
  FileStatsOptions bad_prefix;
  bad_prefix.string_prefix_length = 0;
  EXPECT_EQ(
      FileStatsCollector::Make(schema, ColumnMappingMode::kNone, bad_prefix).error().code,
      ErrorCode::kInvalidArgument);
}

TEST(FileStatsTest, JavaDoubleFormatting) {
  EXPECT_EQ(FormatJavaDouble(1.0), "1.0");
  EXPECT_EQ(FormatJavaDouble(-2.5), "-2.5");
  EXPECT_EQ(FormatJavaDouble(100.0), "100.0");
  EXPECT_EQ(FormatJavaDouble(123456.789), "123456.789");
  EXPECT_EQ(FormatJavaDouble(9999999.0), "9999999.0");
  EXPECT_EQ(FormatJavaDouble(1e7), "1.0E7");
  EXPECT_EQ(FormatJavaDouble(1e10), "1.0E10");
  EXPECT_EQ(FormatJavaDouble(1.25e-5), "1.25E-5");
  EXPECT_EQ(FormatJavaDouble(0.001), "0.001");
  EXPECT_EQ(FormatJavaDouble(0.0001), "1.0E-4");
  EXPECT_EQ(FormatJavaDouble(0.0), "0.0");
  EXPECT_EQ(FormatJavaDouble(-0.0), "-0.0");
  EXPECT_EQ(FormatJavaDouble(std::nan("")), "NaN");
  EXPECT_EQ(FormatJavaDouble(-INFINITY), "-Infinity");
  EXPECT_EQ(FormatJavaDouble(1.7976931348623157e308), "1.7976931348623157E308");
  EXPECT_EQ(FormatJavaFloat(0.1f), "0.1");
  EXPECT_EQ(FormatJavaFloat(3.4028235e38f), "3.4028235E38");
}

TEST(FileStatsTest, DatesAndTimestampsRoundTripThroughTheParser) {
  EXPECT_EQ(FormatDateDays(0), "1970-01-01");
  EXPECT_EQ(FormatDateDays(19723), "2024-01-01");
  EXPECT_EQ(FormatDateDays(-1), "1969-12-31");
  EXPECT_EQ(FormatDateDays(-719528), "0000-01-01");
  EXPECT_EQ(FormatDateDays(2932897), "+10000-01-01");
  for (int64_t days : {-800000, -719529, -1, 0, 59, 60, 11016, 19723, 2932896, 2932897}) {
    auto parsed = ParseDateDays(FormatDateDays(days));
    ASSERT_TRUE(parsed) << FormatDateDays(days) << ": " << parsed.error().ToString();
    EXPECT_EQ(*parsed, days);
  }
  EXPECT_EQ(FormatTimestampMicros(-1, 6), "1969-12-31T23:59:59.999999");
  EXPECT_EQ(FormatTimestampMicros(-1, 3), "1969-12-31T23:59:59.999");
  EXPECT_EQ(FormatTimestampMicros(1704110400123456, 0), "2024-01-01T12:00:00");
  for (int64_t micros : {-62135596800000000LL, -1LL, 0LL, 1704110400123456LL}) {
    auto parsed = ParseTimestampMicros(FormatTimestampMicros(micros, 6) + "Z", true);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, micros);
  }
}

}  // namespace
}  // namespace deltaguard

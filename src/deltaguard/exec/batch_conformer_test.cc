// Tests for BatchConformer: matching, lossless casts, NULL filling, NOT NULL at depth.
#include "deltaguard/exec/batch_conformer.h"

#include <arrow/array.h>
#include <arrow/compute/cast.h>
#include <arrow/record_batch.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

std::shared_ptr<arrow::RecordBatch> Batch(
    const std::vector<std::pair<std::shared_ptr<arrow::Field>, std::string>>& columns) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  int64_t n = 0;
  for (const auto& [field, json] : columns) {
    fields.push_back(field);
    arrays.push_back(ArrayFromJson(field->type(), json));
    n = arrays.back()->length();
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), n, arrays);
}

Result<std::shared_ptr<arrow::RecordBatch>> ConformBatch(const SchemaRef& target,
                                                         const arrow::RecordBatch& batch,
                                                         ConformOptions options = {},
                                                         int64_t first_row = 0) {
  DELTA_ASSIGN_OR_RETURN(auto conformer,
                         BatchConformer::Make(target, batch.schema(), options));
  return conformer->Conform(batch, first_row);
}

void ExpectColumn(const arrow::RecordBatch& batch, const std::string& name,
                  const std::shared_ptr<arrow::DataType>& type, const std::string& json) {
  auto column = batch.GetColumnByName(name);
  ASSERT_NE(column, nullptr) << name;
  auto expected = ArrayFromJson(type, json);
  EXPECT_TRUE(column->Equals(*expected))
      << name << ": got " << column->ToString() << "\nwant " << expected->ToString();
}

TEST(BatchConformerTest, ReordersAndMatchesCaseInsensitively) {
  auto target = Ddl("id INT, Name STRING");
  auto batch = Batch({{arrow::field("NAME", arrow::utf8()), R"(["a", "b"])"},
                      {arrow::field("ID", arrow::int32()), "[1, 2]"}});
  auto out = ConformBatch(target, *batch);
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_EQ((*out)->num_columns(), 2);
  EXPECT_EQ((*out)->schema()->field(0)->name(), "id");
  EXPECT_EQ((*out)->schema()->field(1)->name(), "Name");
  ExpectColumn(**out, "id", arrow::int32(), "[1, 2]");
  ExpectColumn(**out, "Name", arrow::utf8(), R"(["a", "b"])");
}

// keep_dictionaries: a top-level dictionary<int32, utf8> column of a STRING table column
// passes as is (its field shows the type); by default, and inside structs, it is
// decoded.
TEST(BatchConformerTest, KeepDictionariesPassesTopLevelStringDictionaries) {
  auto target = Ddl("id INT, s STRING, st STRUCT<x: STRING>, extra INT");
  auto dict_type = arrow::dictionary(arrow::int32(), arrow::utf8());
  auto dict = *arrow::DictionaryArray::FromArrays(
      dict_type, ArrayFromJson(arrow::int32(), "[1, null, 0]"),
      ArrayFromJson(arrow::utf8(), R"(["a", "b"])"));
  auto inner = *arrow::DictionaryArray::FromArrays(
      dict_type, ArrayFromJson(arrow::int32(), "[0, 0, 0]"),
      ArrayFromJson(arrow::utf8(), R"(["q"])"));
  auto st = *arrow::StructArray::Make({inner}, {arrow::field("x", dict_type)});
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("s", dict_type),
                     arrow::field("st", st->type())}),
      3, {ArrayFromJson(arrow::int32(), "[1, 2, 3]"), dict, st});
  for (bool keep : {true, false}) {
    ConformOptions options;
    options.keep_dictionaries = keep;
    auto out = ConformBatch(target, *batch, options);
    ASSERT_TRUE(out) << out.error().ToString();
    ASSERT_TRUE((*out)->ValidateFull().ok());
    EXPECT_EQ((*out)->column(1).get() == dict.get(), keep);
    EXPECT_EQ((*out)->schema()->field(1)->type()->Equals(*dict_type), keep);
    EXPECT_EQ((*out)->schema()->field(2)->type()->ToString(), "struct<x: string>");
    ExpectColumn(**out, "st", (*out)->schema()->field(2)->type(),
                 R"([{"x": "q"}, {"x": "q"}, {"x": "q"}])");
    EXPECT_EQ((*out)->column(3)->null_count(), 3);
    auto s = keep ? *arrow::compute::Cast(*(*out)->column(1), arrow::utf8())
                  : (*out)->column(1);
    EXPECT_EQ(s->ToString(),
              ArrayFromJson(arrow::utf8(), R"(["b", null, "a"])")->ToString());
  }
}

TEST(BatchConformerTest, MissingColumnsBecomeNull) {
  auto target = Ddl("id INT, extra STRUCT<x: INT, y: STRING>, note STRING");
  auto batch = Batch({{arrow::field("id", arrow::int32()), "[1, 2, 3]"}});
  auto out = ConformBatch(target, *batch);
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ((*out)->column(1)->null_count(), 3);
  EXPECT_EQ((*out)->column(2)->null_count(), 3);
  EXPECT_TRUE((*out)->schema()->Equals(*ToArrowSchema(*target).value()));
}

TEST(BatchConformerTest, ExtraAndDuplicateInputColumnsFail) {
  auto target = Ddl("id INT");
  auto extra = Batch({{arrow::field("id", arrow::int32()), "[1]"},
                      {arrow::field("coupon", arrow::utf8()), R"(["x"])"}});
  auto out = ConformBatch(target, *extra, {false, "sales"});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(out.error().message, HasSubstr("'coupon'"));
  EXPECT_THAT(out.error().message, HasSubstr("table 'sales'"));

  auto dup = Batch({{arrow::field("id", arrow::int32()), "[1]"},
                    {arrow::field("ID", arrow::int32()), "[1]"}});
  auto dup_out = ConformBatch(target, *dup);
  ASSERT_FALSE(dup_out);
  EXPECT_THAT(dup_out.error().message, HasSubstr("differ only by case"));
}

TEST(BatchConformerTest, LosslessCastsAndRepresentationChanges) {
  auto target = Ddl(
      "b SMALLINT, i BIGINT, f DOUBLE, d DECIMAL(12,2), dt TIMESTAMP_NTZ, s STRING, "
      "dict STRING, ts TIMESTAMP, u BIGINT, u8 SMALLINT, dec DECIMAL(10,2), day DATE, "
      "half FLOAT, bin BINARY, l ARRAY<INT>, v INT");
  auto batch = Batch({
      {arrow::field("b", arrow::int8()), "[-1]"},
      {arrow::field("i", arrow::int32()), "[2147483647]"},
      {arrow::field("f", arrow::float32()), "[1.5]"},
      {arrow::field("d", arrow::int32()), "[123]"},
      {arrow::field("dt", arrow::date32()), "[1]"},
      {arrow::field("s", arrow::large_utf8()), R"(["x"])"},
      {arrow::field("dict", arrow::dictionary(arrow::int8(), arrow::utf8())), R"(["y"])"},
      {arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MILLI, "Europe/Paris")),
       "[1000]"},
      {arrow::field("u", arrow::uint32()), "[4294967295]"},
      {arrow::field("u8", arrow::uint8()), "[255]"},
      {arrow::field("dec", arrow::decimal256(10, 2)), R"(["12.34"])"},
      {arrow::field("day", arrow::date64()), "[86400000]"},
      {arrow::field("half", arrow::float16()), "[1.5]"},
      {arrow::field("bin", arrow::fixed_size_binary(2)), R"(["ab"])"},
      {arrow::field("l", arrow::fixed_size_list(arrow::int16(), 2)), "[[1, 2]]"},
      {arrow::field("v", arrow::null()), "[null]"},
  });
  auto out = ConformBatch(target, *batch);
  ASSERT_TRUE(out) << out.error().ToString();
  ExpectColumn(**out, "b", arrow::int16(), "[-1]");
  ExpectColumn(**out, "i", arrow::int64(), "[2147483647]");
  ExpectColumn(**out, "f", arrow::float64(), "[1.5]");
  ExpectColumn(**out, "d", arrow::decimal128(12, 2), R"(["123.00"])");
  ExpectColumn(**out, "dt", arrow::timestamp(arrow::TimeUnit::MICRO), "[86400000000]");
  ExpectColumn(**out, "s", arrow::utf8(), R"(["x"])");
  ExpectColumn(**out, "dict", arrow::utf8(), R"(["y"])");
  ExpectColumn(**out, "ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), "[1000000]");
  ExpectColumn(**out, "u", arrow::int64(), "[4294967295]");
  ExpectColumn(**out, "u8", arrow::int16(), "[255]");
  ExpectColumn(**out, "dec", arrow::decimal128(10, 2), R"(["12.34"])");
  ExpectColumn(**out, "day", arrow::date32(), "[1]");
  ExpectColumn(**out, "half", arrow::float32(), "[1.5]");
  ExpectColumn(**out, "bin", arrow::binary(), R"(["ab"])");
  ExpectColumn(**out, "l", arrow::list(arrow::field("element", arrow::int32())),
               "[[1, 2]]");
  ExpectColumn(**out, "v", arrow::int32(), "[null]");
  EXPECT_TRUE((*out)->schema()->Equals(*ToArrowSchema(*target).value()));
}

TEST(BatchConformerTest, LossyCastsAreRefusedNamingColumnAndTypes) {
  struct Case {
    std::string ddl;
    std::shared_ptr<arrow::DataType> input;
    std::string json;
    std::string input_name;
  };
  const std::vector<Case> cases = {
      {"c INT", arrow::int64(), "[1]", "long"},
      {"c INT", arrow::utf8(), R"(["1"])", "string"},
      {"c FLOAT", arrow::float64(), "[1]", "double"},
      {"c DATE", arrow::timestamp(arrow::TimeUnit::MICRO), "[1]", "timestamp_ntz"},
      {"c DECIMAL(5,2)", arrow::decimal128(5, 3), R"(["1.000"])", "decimal(5,3)"},
      {"c INT", arrow::uint32(), "[1]", "long"},
      {"c STRUCT<a: INT>", arrow::int32(), "[1]", "integer"},
      {"c ARRAY<INT>", arrow::list(arrow::int64()), "[[1]]", "long"},
  };
  for (const auto& c : cases) {
    auto batch = Batch({{arrow::field("c", c.input), c.json}});
    auto out = ConformBatch(Ddl(c.ddl), *batch);
    ASSERT_FALSE(out) << c.ddl << " from " << c.input->ToString();
    EXPECT_EQ(out.error().code, ErrorCode::kSchemaMismatch);
    EXPECT_THAT(out.error().message, HasSubstr("column 'c"));
    EXPECT_THAT(out.error().message, HasSubstr(c.input_name));
  }
}

TEST(BatchConformerTest, Uint64OverflowFailsInsteadOfWrapping) {
  auto target = Ddl("big BIGINT");
  auto ok = Batch({{arrow::field("big", arrow::uint64()), "[9223372036854775807]"}});
  auto fine = ConformBatch(target, *ok);
  ASSERT_TRUE(fine) << fine.error().ToString();
  ExpectColumn(**fine, "big", arrow::int64(), "[9223372036854775807]");

  auto batch =
      Batch({{arrow::field("big", arrow::uint64()), "[1, 18446744073709551615]"}});
  auto out = ConformBatch(target, *batch, {false, "t"});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(out.error().message, HasSubstr("DELTA_CAST_OVERFLOW_IN_TABLE_WRITE"));
  EXPECT_THAT(out.error().message, HasSubstr("'big'"));
  EXPECT_THAT(out.error().message, HasSubstr("18446744073709551615"));
  EXPECT_THAT(out.error().message, HasSubstr("uint64"));
  EXPECT_THAT(out.error().message, HasSubstr("long"));
}

TEST(BatchConformerTest, NanosecondTruncationFails) {
  auto target = Ddl("t TIMESTAMP_NTZ");
  auto ns = arrow::timestamp(arrow::TimeUnit::NANO);
  auto exact = ConformBatch(target, *Batch({{arrow::field("t", ns), "[1000, 2000000]"}}));
  ASSERT_TRUE(exact) << exact.error().ToString();
  ExpectColumn(**exact, "t", arrow::timestamp(arrow::TimeUnit::MICRO), "[1, 2000]");

  auto out =
      ConformBatch(target, *Batch({{arrow::field("t", ns), "[1000, 1000000001]"}}));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(out.error().message, HasSubstr("DELTA_CAST_OVERFLOW_IN_TABLE_WRITE"));
  EXPECT_THAT(out.error().message, HasSubstr("column 't'"));
}

TEST(BatchConformerTest, NestedStructListMapReorderAndCast) {
  auto target = Ddl(
      "s STRUCT<a: INT, b: STRING, c: DOUBLE>, l ARRAY<STRUCT<x: BIGINT, y: STRING>>, "
      "m MAP<STRING, STRUCT<p: INT, q: INT>>");
  auto in_s = arrow::struct_(
      {arrow::field("B", arrow::utf8()), arrow::field("a", arrow::int16())});
  auto in_l = arrow::large_list(arrow::struct_(
      {arrow::field("y", arrow::utf8()), arrow::field("X", arrow::int32())}));
  auto in_m = arrow::map(arrow::large_utf8(),
                         arrow::struct_({arrow::field("q", arrow::int8()),
                                         arrow::field("p", arrow::int32())}));
  auto batch = Batch({
      {arrow::field("m", in_m), R"([[["k", {"q": 1, "p": 2}]], null])"},
      {arrow::field("s", in_s), R"([{"B": "x", "a": 1}, null])"},
      {arrow::field("L", in_l), R"([[{"y": "u", "X": 7}], [null, {"y": "v", "X": 8}]])"},
  });
  auto out = ConformBatch(target, *batch);
  ASSERT_TRUE(out) << out.error().ToString();
  auto expected_type = ToArrowSchema(*target).value();
  ASSERT_TRUE((*out)->schema()->Equals(*expected_type)) << (*out)->schema()->ToString();
  ExpectColumn(**out, "s", expected_type->field(0)->type(),
               R"([{"a": 1, "b": "x", "c": null}, null])");
  ExpectColumn(**out, "l", expected_type->field(1)->type(),
               R"([[{"x": 7, "y": "u"}], [null, {"x": 8, "y": "v"}]])");
  ExpectColumn(**out, "m", expected_type->field(2)->type(),
               R"([[["k", {"p": 2, "q": 1}]], null])");
  // The output is valid Arrow data.
  EXPECT_TRUE((*out)->ValidateFull().ok()) << (*out)->ValidateFull().ToString();
}

TEST(BatchConformerTest, SlicedInputKeepsAlignment) {
  auto target = Ddl("s STRUCT<a: BIGINT, b: STRING>, l ARRAY<BIGINT>");
  auto batch = Batch({
      {arrow::field("s", arrow::struct_({arrow::field("b", arrow::utf8()),
                                         arrow::field("a", arrow::int32())})),
       R"([{"b": "0", "a": 0}, {"b": "1", "a": 1}, null, {"b": "3", "a": 3}])"},
      {arrow::field("l", arrow::list(arrow::int32())), "[[0], [1, 1], null, [3]]"},
  });
  auto out = ConformBatch(target, *batch->Slice(1, 3));
  ASSERT_TRUE(out) << out.error().ToString();
  auto schema = ToArrowSchema(*target).value();
  ExpectColumn(**out, "s", schema->field(0)->type(),
               R"([{"a": 1, "b": "1"}, null, {"a": 3, "b": "3"}])");
  ExpectColumn(**out, "l", schema->field(1)->type(), "[[1, 1], null, [3]]");
}

TEST(BatchConformerTest, NotNullTopLevelCountsRowsAndNamesFirstRow) {
  auto target = Ddl("id INT NOT NULL, name STRING");
  auto batch = Batch({{arrow::field("id", arrow::int32()), "[1, null, 3, null]"},
                      {arrow::field("name", arrow::utf8()), R"(["a", "b", "c", "d"])"}});
  auto out = ConformBatch(target, *batch, {false, "people"}, /*first_row=*/100);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(
      out.error().message,
      HasSubstr("DELTA_NOT_NULL_CONSTRAINT_VIOLATED: NOT NULL constraint violated "
                "for column: id"));
  EXPECT_THAT(out.error().message, HasSubstr("2 row(s)"));
  EXPECT_THAT(out.error().message, HasSubstr("input row 102"));

  auto clean = Batch({{arrow::field("id", arrow::int32()), "[1, 2]"}});
  auto ok = ConformBatch(target, *clean);
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_FALSE((*ok)->schema()->field(0)->nullable());
}

TEST(BatchConformerTest, MissingNotNullColumnFails) {
  auto target = Ddl("id INT NOT NULL, name STRING");
  auto batch = Batch({{arrow::field("name", arrow::utf8()), R"(["a"])"}});
  auto out = ConformBatch(target, *batch);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(out.error().message, HasSubstr("column: id"));
}

TEST(BatchConformerTest, NullParentStructViolatesNotNullChild) {
  auto target = Ddl("s STRUCT<a: INT NOT NULL, b: INT>");
  auto in_type = arrow::struct_(
      {arrow::field("a", arrow::int32()), arrow::field("b", arrow::int32())});
  auto ok = ConformBatch(
      target, *Batch({{arrow::field("s", in_type), R"([{"a": 1, "b": null}])"}}));
  ASSERT_TRUE(ok) << ok.error().ToString();

  auto child_null =
      ConformBatch(target, *Batch({{arrow::field("s", in_type),
                                    R"([{"a": 1, "b": 2}, {"a": null, "b": 2}])"}}));
  ASSERT_FALSE(child_null);
  EXPECT_THAT(child_null.error().message, HasSubstr("column: s.a"));
  EXPECT_THAT(child_null.error().message, HasSubstr("input row 2"));

  auto parent_null = ConformBatch(
      target, *Batch({{arrow::field("s", in_type), R"([{"a": 1, "b": 2}, null])"}}));
  ASSERT_FALSE(parent_null);
  EXPECT_EQ(parent_null.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(parent_null.error().message, HasSubstr("column: s.a"));
}

TEST(BatchConformerTest, ArrayAndMapElementNullability) {
  auto no_null_elements = std::make_shared<ArrayType>(DataType::Integer(), false);
  auto no_null_values =
      std::make_shared<MapType>(DataType::String(), DataType::Integer(), false);
  auto target = std::make_shared<const StructType>(std::vector<StructField>{
      {"l", no_null_elements, true, {}}, {"m", no_null_values, true, {}}});
  auto list_type = arrow::list(arrow::int32());
  auto map_type = arrow::map(arrow::utf8(), arrow::int32());

  auto ok = ConformBatch(
      target, *Batch({{arrow::field("l", list_type), "[[1, 2], null]"},
                      {arrow::field("m", map_type), R"([[["a", 1]], null])"}}));
  ASSERT_TRUE(ok) << ok.error().ToString();

  auto bad_list =
      ConformBatch(target, *Batch({{arrow::field("l", list_type), "[[1], [2, null]]"},
                                   {arrow::field("m", map_type), "[null, null]"}}));
  ASSERT_FALSE(bad_list);
  EXPECT_EQ(bad_list.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(bad_list.error().message, HasSubstr("column: l.element"));
  EXPECT_THAT(bad_list.error().message, HasSubstr("input row 2"));

  auto bad_map = ConformBatch(
      target, *Batch({{arrow::field("l", list_type), "[null]"},
                      {arrow::field("m", map_type), R"([[["a", 1], ["b", null]]])"}}));
  ASSERT_FALSE(bad_map);
  EXPECT_THAT(bad_map.error().message, HasSubstr("column: m.value"));
}

TEST(BatchConformerTest, ByPositionMatchesTopLevelAndGuardsReordering) {
  auto target = Ddl("id INT, name STRING");
  auto positional = Batch({{arrow::field("_c0", arrow::int32()), "[1]"},
                           {arrow::field("_c1", arrow::utf8()), R"(["a"])"}});
  auto out = ConformBatch(target, *positional, {true, "t"});
  ASSERT_TRUE(out) << out.error().ToString();
  ExpectColumn(**out, "name", arrow::utf8(), R"(["a"])");

  auto swapped = Batch({{arrow::field("name", arrow::utf8()), R"(["a"])"},
                        {arrow::field("id", arrow::int32()), "[1]"}});
  auto refused = ConformBatch(target, *swapped, {true, "t"});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(refused.error().message, HasSubstr("BY NAME"));

  auto too_many = Batch({{arrow::field("a", arrow::int32()), "[1]"},
                         {arrow::field("b", arrow::utf8()), R"(["a"])"},
                         {arrow::field("c", arrow::utf8()), R"(["a"])"}});
  EXPECT_FALSE(ConformBatch(target, *too_many, {true, "t"}));
}

}  // namespace
}  // namespace deltaguard

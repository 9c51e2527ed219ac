// JSON tokens, CSV fields and values into builders with rescue (ingest/json_tokens.h,
// csv_fields.h, values.h): every kind of mismatch lands in the rescued fields as it
// arrived, never as a silent NULL.

#include "deltaguard/ingest/values.h"

#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/ingest/csv_fields.h"
#include "deltaguard/ingest/json_tokens.h"
#include "deltaguard/schema/ddl.h"

namespace deltaguard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(JsonRecord, KeepsNumberTextAndNests) {
  JsonRecord r;
  std::string text = R"( {"a": 275.50, "b": {"c": [1, "x\"y", null, true]}} )";
  ASSERT_FALSE(r.Parse(&text, 10));
  EXPECT_EQ(r.root().count, 2u);
  EXPECT_EQ(r.tokens()[1].key, "a");
  EXPECT_EQ(r.tokens()[1].text, "275.50");
  EXPECT_EQ(r.ToJson(0), R"({"a":275.50,"b":{"c":[1,"x\"y",null,true]}})");
}

TEST(JsonRecord, ProblemsNameTheColumn) {
  JsonRecord r;
  std::string broken = R"({"a": 1,)";
  auto p = r.Parse(&broken, 10);
  ASSERT_TRUE(p);
  EXPECT_THAT(p->message, HasSubstr("invalid JSON"));
  std::string array = "[1, 2]";
  ASSERT_TRUE(r.Parse(&array, 10));
  EXPECT_THAT(r.Parse(&array, 10)->message, HasSubstr("must be an object"));
  std::string deep = R"({"a":{"b":{"c":{}}}})";
  EXPECT_THAT(r.Parse(&deep, 2)->message, HasSubstr("nest deeper than 2"));
  std::string two = R"({"a":1} {"b":2})";
  EXPECT_THAT(r.Parse(&two, 10)->message, HasSubstr("second JSON value"));
}

TEST(CsvFields, QuotesEscapesAndProblems) {
  std::vector<std::string> f;
  EXPECT_FALSE(SplitCsvRecord(R"(1,"a,b","say ""hi""",,"x\"y")", ',', '"', '\\', &f));
  EXPECT_THAT(f, ElementsAre("1", "a,b", "say \"hi\"", "", "x\"y"));
  EXPECT_TRUE(SplitCsvRecord(R"(1,"open)", ',', '"', '\\', &f));
  EXPECT_THAT(*SplitCsvRecord(R"("a"b,2)", ',', '"', '\\', &f), HasSubstr("follows"));
  EXPECT_TRUE(CsvQuoteOpen("1,\"line one", ',', '"', '\\'));
  EXPECT_FALSE(CsvQuoteOpen("1,\"line one\nline two\"", ',', '"', '\\'));
}

struct Appended {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  std::string rescued;
  std::vector<UnknownField> unknown;
};

Appended Append(const std::string& ddl, std::string json, ValueOptions options = {}) {
  auto schema = ParseDdlSchema(ddl);
  EXPECT_TRUE(schema) << schema.error().message;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;
  std::vector<arrow::ArrayBuilder*> ptrs;
  for (const auto& f : (*schema)->fields()) {
    builders.push_back(*MakeIngestBuilder(*f.type));
    ptrs.push_back(builders.back().get());
  }
  JsonRecord record;
  EXPECT_FALSE(record.Parse(&json, 10));
  ValueAppender v(options);
  RescuedFields rescued;
  Appended out;
  v.AppendRecord(record, 0, **schema, ptrs, &rescued, &out.unknown);
  EXPECT_TRUE(v.status().ok());
  for (auto& b : builders) out.columns.push_back(*b->Finish());
  if (!rescued.empty()) out.rescued = rescued.Render("/in/f.json");
  return out;
}

TEST(ValueAppender, TypeMismatchesAreRescuedAsTheyArrived) {
  auto a = Append("id BIGINT, amount DOUBLE, ok BOOLEAN, d DECIMAL(10,2)",
                  R"({"id": 7, "amount": "275.50", "ok": 1, "d": 12.345})");
  EXPECT_EQ(a.columns[0]->ToString(), "[\n  7\n]");
  EXPECT_EQ(a.columns[1]->null_count(), 1);  // the string is not a DOUBLE
  EXPECT_EQ(a.columns[2]->null_count(), 1);
  EXPECT_EQ(a.columns[3]->null_count(), 1);  // 12.345 would lose a digit
  EXPECT_EQ(a.rescued,
            R"({"amount":"275.50","ok":1,"d":12.345,"_file_path":"/in/f.json"})");
  EXPECT_TRUE(a.unknown.empty());
}

TEST(ValueAppender, UnknownAndCaseDifferingFields) {
  auto a = Append("channel STRING, customer STRUCT<id: BIGINT>",
                  R"({"Channel": "web", "payment_method": "card",
                      "customer": {"id": 1, "email": "a@b"}})");
  EXPECT_EQ(a.columns[0]->null_count(), 1);
  EXPECT_EQ(a.rescued,
            R"({"Channel":"web","payment_method":"card","customer":{"email":"a@b"},)"
            R"("_file_path":"/in/f.json"})");
  ASSERT_EQ(a.unknown.size(), 2u);  // Channel is not new: the case differs only
  EXPECT_THAT(a.unknown[0].path, ElementsAre("payment_method"));
  EXPECT_THAT(a.unknown[1].path, ElementsAre("customer", "email"));

  ValueOptions insensitive;
  insensitive.case_sensitive = false;
  auto b = Append("channel STRING", R"({"Channel": "web"})", insensitive);
  EXPECT_EQ(b.columns[0]->null_count(), 0);
  EXPECT_EQ(b.rescued, "");
}

TEST(ValueAppender, StringsTakeAnyValueAndTypesParse) {
  auto a = Append(
      "s STRING, o STRING, ts TIMESTAMP, dt DATE, d DECIMAL(10,2), b BINARY, "
      "tags ARRAY<BIGINT>, m MAP<STRING, INT>",
      R"({"s": 275.50, "o": {"x": [1]}, "ts": "2024-01-31T12:00:00Z",
          "dt": "2024-01-31", "d": "12.30", "b": "aGk=", "tags": [1, "two"],
          "m": {"a": 1}})");
  EXPECT_EQ(std::static_pointer_cast<arrow::StringArray>(a.columns[0])->GetString(0),
            "275.50");
  EXPECT_EQ(std::static_pointer_cast<arrow::StringArray>(a.columns[1])->GetString(0),
            R"({"x":[1]})");
  EXPECT_EQ(a.columns[2]->null_count(), 0);
  EXPECT_EQ(a.columns[3]->null_count(), 0);
  EXPECT_EQ(a.columns[4]->ToString(), "[\n  12.30\n]");
  EXPECT_EQ(std::static_pointer_cast<arrow::BinaryArray>(a.columns[5])->GetString(0),
            "hi");
  // An element that does not fit: NULL in the array, the whole array rescued.
  EXPECT_EQ(a.rescued, R"({"tags":[1,"two"],"_file_path":"/in/f.json"})");
}

TEST(ValueAppender, CsvTextParsesOrIsRescuedAsAString) {
  auto schema = ParseDdlSchema("n INT, s STRING");
  ValueAppender v(ValueOptions{});
  auto n = *MakeIngestBuilder(*DataType::Integer());
  RescuedFields rescued;
  v.AppendText("42", *DataType::Integer(), n.get(), {"n"}, &rescued, nullptr);
  v.AppendText("4x", *DataType::Integer(), n.get(), {"n"}, &rescued, nullptr);
  v.AppendText("", *DataType::Integer(), n.get(), {"n"}, &rescued, nullptr);
  auto array = *n->Finish();
  EXPECT_EQ(array->null_count(), 2);
  EXPECT_EQ(rescued.Render("f.csv"), R"({"n":"4x","_file_path":"f.csv"})");
}

TEST(Inference, MergesLikeSpark) {
  ValueOptions typed;
  typed.infer_column_types = true;
  ValueAppender v(typed);
  JsonRecord r;
  std::string text = R"({"a": 1, "b": 1.5, "c": true, "d": null, "e": {"x": 1}})";
  ASSERT_FALSE(r.Parse(&text, 10));
  auto t = v.InferJson(r, 0);
  EXPECT_EQ(t->ToString(),
            "struct<a: long, b: double, c: boolean, d: void, e: struct<x: long>>");
  EXPECT_EQ(MergeInferredTypes(DataType::Long(), DataType::Double())->ToString(),
            "double");
  EXPECT_EQ(MergeInferredTypes(DataType::Long(), DataType::String())->ToString(),
            "string");
  EXPECT_EQ(ResolveVoid(t)->ToString(),
            "struct<a: long, b: double, c: boolean, d: string, e: struct<x: long>>");
  ValueAppender untyped(ValueOptions{});
  EXPECT_EQ(untyped.InferJson(r, 0)->ToString(),
            "struct<a: string, b: string, c: string, d: void, e: struct<x: string>>");
  EXPECT_EQ(v.InferText("12")->ToString(), "integer");
  EXPECT_EQ(v.InferText("3000000000")->ToString(), "long");
  EXPECT_EQ(v.InferText("1.5")->ToString(), "double");
  EXPECT_EQ(v.InferText("TRUE")->ToString(), "boolean");
}

}  // namespace
}  // namespace deltaguard

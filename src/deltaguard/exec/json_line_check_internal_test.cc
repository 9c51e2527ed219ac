// Tests for the NDJSON line check (json_line_check_internal.h), alone and through the
// checking stream every JSON input is read through.
#include "deltaguard/exec/json_line_check_internal.h"

#include <arrow/record_batch.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/input_source.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

std::string Record(int depth) {  // the record object plus depth - 1 nested arrays
  return R"({"a": )" + std::string(depth - 1, '[') + "1" + std::string(depth - 1, ']') +
         "}";
}

// The rows read from `path`, or the error of opening or reading it.
Result<int64_t> ReadRows(const std::string& path, const InputOptions& options = {}) {
  DELTA_ASSIGN_OR_RETURN(InputFile file, InspectInput(path, options));
  DELTA_ASSIGN_OR_RETURN(auto reader, OpenInput(file, options));
  int64_t rows = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status st = reader->ReadNext(&batch);
    if (!st.ok()) return internal::FromArrowStatus(st, ErrorCode::kInternal, "read");
    if (batch == nullptr) return rows;
    rows += batch->num_rows();
  }
}

TEST(JsonLineCheckTest, BlankLinesAndOneObjectPass) {
  EXPECT_EQ(internal::CheckJsonLine(""), std::nullopt);
  EXPECT_EQ(internal::CheckJsonLine(" \t\r"), std::nullopt);
  EXPECT_EQ(internal::CheckJsonLine(R"( {"a": [1, {"b": "}]["}], "c": NaN} )"),
            std::nullopt);
  EXPECT_EQ(internal::CheckJsonLine(R"({"a": -Infinity, "b": 1e308})"), std::nullopt);
}

TEST(JsonLineCheckTest, AnythingButOneObjectIsRefusedWithItsColumn) {
  struct Case {
    std::string line;
    int64_t column;
    std::string says;
  };
  const Case cases[] = {
      {"null", 1, "found null"},
      {R"(  null,"f":"2")", 3, "found null"},  // the fuzz finding: Arrow read past it
      {"[1]", 1, "found an array"},
      {"12", 1, "found a number"},
      {R"("s")", 1, "found a string"},
      {"true", 1, "found a boolean"},
      {R"({"a":1} {"a":2})", 9, "a second JSON value follows"},
      {R"({"a":1}x)", 8, "a second JSON value follows"},
      {R"({"a":1,})", 8, "invalid JSON: Missing a name for object member"},
      {R"({"a":1)", 7, "invalid JSON: Missing a comma or '}'"},
      {R"({"a":"\ud800"})", 7, "invalid JSON: The surrogate pair"},
      {R"({"a":1e400})", 6, "invalid JSON: Number too big"},  // as Arrow's reader
      {std::string("{\"a\":\"x\0y\"}", 11), 8, "invalid JSON"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    auto problem = internal::CheckJsonLine(c.line);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->column, c.column);
    EXPECT_THAT(problem->message, HasSubstr(c.says));
  }
}

TEST(JsonLineCheckTest, NestingIsBoundedWithoutRecursion) {
  EXPECT_EQ(internal::CheckJsonLine(Record(kMaxInputJsonDepth)), std::nullopt);
  auto deep = internal::CheckJsonLine(Record(kMaxInputJsonDepth + 1));
  ASSERT_TRUE(deep.has_value());
  EXPECT_THAT(deep->message, HasSubstr("deeper than 65 levels"));
  EXPECT_EQ(deep->column, 6 + kMaxInputJsonDepth);  // the bracket past the limit
  // Two million levels: the parse is iterative and stops at the limit.
  auto huge = internal::CheckJsonLine(std::string(2'000'000, '['));
  ASSERT_TRUE(huge.has_value());
  EXPECT_THAT(huge->message, HasSubstr("found an array"));
  huge = internal::CheckJsonLine(R"({"a":)" + std::string(2'000'000, '['));
  ASSERT_TRUE(huge.has_value());
  EXPECT_THAT(huge->message, HasSubstr("deeper than"));
}

TEST(JsonLineCheckTest, NullFirstLineIsAnErrorNotACrash) {
  // Arrow's JSON reader crashed (SIGSEGV) on a `null` record at the start of the input.
  TempDir dir;
  for (const char* text : {"null\n{\"a\":1}\n", "null,\"f\":\"x\"}\n", "null"}) {
    SCOPED_TRACE(text);
    std::string path = dir.Join("null.json");
    WriteTextFile(path, text);
    auto rows = ReadRows(path);
    ASSERT_FALSE(rows);
    EXPECT_EQ(rows.error().code, ErrorCode::kParseError);
    EXPECT_THAT(rows.error().message, HasSubstr("null.json', line 1, column 1"));
    EXPECT_THAT(rows.error().message, HasSubstr("found null"));
  }
}

TEST(JsonLineCheckTest, ErrorsNameThePhysicalLineAcrossReaderBlocks) {
  // Lines straddle the 1 KiB blocks the stream is read in; blank and CRLF lines count.
  TempDir dir;
  std::string path = dir.Join("many.json");
  std::ostringstream text;
  for (int i = 1; i <= 3000; ++i) {
    if (i % 7 == 0) {
      text << "\r\n";
    } else {
      text << R"({"id": )" << i << R"(, "name": "row )" << i << "\"}\r\n";
    }
  }
  WriteTextFile(path, text.str());
  InputOptions options;
  options.json_block_size = 1024;
  auto rows = ReadRows(path, options);
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(*rows, 3000 - 3000 / 7);

  WriteTextFile(
      path, text.str() + R"({"id": 3001, "name": "x" "y"})" + "\n" + R"({"id": 3002})");
  rows = ReadRows(path, options);
  ASSERT_FALSE(rows);
  EXPECT_THAT(rows.error().message, HasSubstr("many.json', line 3001, column 26"));
  EXPECT_THAT(rows.error().message, HasSubstr("Missing a comma or '}'"));
  // The last line has no '\n': it is checked at the end of the input.
  WriteTextFile(path, text.str() + R"({"id": 3001)");
  rows = ReadRows(path, options);
  ASSERT_FALSE(rows);
  EXPECT_THAT(rows.error().message, HasSubstr("line 3001, column 12"));
}

TEST(JsonLineCheckTest, DeepInputIsRefusedBeforeArrowNamingFileAndLine) {
  TempDir dir;
  std::string path = dir.Join("deep.json");
  WriteTextFile(path, Record(2) + "\n" + Record(kMaxInputJsonDepth + 1) + "\n");
  auto rows = ReadRows(path);
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(rows.error().message, HasSubstr("deep.json', line 2"));
  EXPECT_THAT(rows.error().message, HasSubstr("deeper than 65 levels"));
  // Arrow's JSON reader crashed on 5000 levels of objects.
  std::string objects = dir.Join("objects.json");
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += R"({"a": )";
  deep += "1" + std::string(5000, '}');
  WriteTextFile(objects, R"({"a": )" + deep + "}\n");
  rows = ReadRows(objects);
  ASSERT_FALSE(rows);
  EXPECT_THAT(rows.error().message, HasSubstr("objects.json', line 1"));
  // The deepest a Delta column can hold is read.
  WriteTextFile(path, Record(kMaxInputJsonDepth) + "\n");
  rows = ReadRows(path);
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(*rows, 1);
}

}  // namespace
}  // namespace deltaguard

// Tests for the checks CSV and JSON inputs are read through (text_stream_internal.h,
// csv_scan_internal.h, utf8_check_internal.h): unterminated quotes, multiLine, UTF-8,
// long JSON lines, and escaped messages.
#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/io/memory.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/csv_scan_internal.h"
#include "deltaguard/exec/input_source.h"
#include "deltaguard/exec/input_test_util_internal.h"
#include "deltaguard/exec/text_stream_internal.h"
#include "deltaguard/util/string_util.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::ReadAll;

int64_t Rows(const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches) {
  int64_t n = 0;
  for (const auto& b : batches) n += b->num_rows();
  return n;
}

std::string StringAt(const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
                     int column, int64_t row) {
  for (const auto& b : batches) {
    if (row < b->num_rows()) {
      return std::string(
          static_cast<const arrow::StringArray&>(*b->column(column)).GetView(row));
    }
    row -= b->num_rows();
  }
  return "<no such row>";
}

TEST(CsvQuoteTest, UnterminatedQuoteFailsNamingTheLineInsteadOfMergingRows) {
  TempDir dir;
  std::string path = dir.Join("in.csv");
  WriteTextFile(path, "id,name\n1,\"abc\n2,def\n3,ghi\n");
  auto read = ReadAll(path, InputOptions{});
  ASSERT_FALSE(read) << Rows(*read) << " rows read";
  EXPECT_EQ(read.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(read.error().message, HasSubstr("in.csv"));
  EXPECT_THAT(read.error().message, HasSubstr("line 2"));
  EXPECT_THAT(read.error().message, HasSubstr("--multi-line"));
}

TEST(CsvQuoteTest, UnterminatedQuoteAtTheEndOfTheFileFailsWithOrWithoutMultiLine) {
  TempDir dir;
  std::string path = dir.Join("in.csv");
  WriteTextFile(path, "id,name\n1,a\n2,\"never closed");
  for (bool multi_line : {false, true}) {
    InputOptions options;
    options.csv_multi_line = multi_line;
    auto read = ReadAll(path, options);
    ASSERT_FALSE(read) << "multi_line " << multi_line;
    EXPECT_EQ(read.error().code, ErrorCode::kInvalidArgument);
    EXPECT_THAT(read.error().message, HasSubstr("line 3"));
    EXPECT_THAT(read.error().message, HasSubstr("end of the file"));
  }
  // With multiLine, the quote may open lines before the end.
  WriteTextFile(path, "id,name\n1,\"abc\n2,def\n3,ghi\n");
  InputOptions options;
  options.csv_multi_line = true;
  auto read = ReadAll(path, options);
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message, HasSubstr("line 2"));
  EXPECT_THAT(read.error().message, HasSubstr("end of the file"));
}

TEST(CsvQuoteTest, MultiLineKeepsQuotedLineBreaksAndCountsRecords) {
  TempDir dir;
  std::string path = dir.Join("in.csv");
  WriteTextFile(path, "id,name\n1,\"a\nb\"\n2,\"x\r\ny\"\"z\"\n3,plain\n");
  InputOptions options;
  options.csv_multi_line = true;
  options.type_hint = Ddl("id BIGINT, name STRING");
  auto read = ReadAll(path, options);
  ASSERT_TRUE(read) << read.error().ToString();
  EXPECT_EQ(Rows(*read), 3);
  EXPECT_EQ(StringAt(*read, 1, 0), "a\nb");
  EXPECT_EQ(StringAt(*read, 1, 1), "x\r\ny\"z");
  // Without multiLine the same file is refused at the first quoted line break.
  auto strict = ReadAll(path, InputOptions{});
  ASSERT_FALSE(strict);
  EXPECT_THAT(strict.error().message, HasSubstr("line 2"));
}

TEST(CsvQuoteTest, QuotesAreOnlySpecialAtTheStartOfAField) {
  TempDir dir;
  std::string path = dir.Join("in.csv");
  // x"y: a literal quote; "q""r"s: a doubled quote, then unquoted text after the close.
  WriteTextFile(path, "a,b\n1,x\"y\n2,\"q\"\"r\"s\n3,\"\"\n");
  auto read = ReadAll(path, InputOptions{});
  ASSERT_TRUE(read) << read.error().ToString();
  EXPECT_EQ(Rows(*read), 3);
  EXPECT_EQ(StringAt(*read, 1, 0), "x\"y");
  EXPECT_EQ(StringAt(*read, 1, 1), "q\"rs");
}

TEST(CsvQuoteScannerTest, SameAnswerForAnySplitOfTheInput) {
  const std::string input = "a,b\r\n1,\"x\"\"\r\ny\"\r2,\"z\n";
  for (bool multi_line : {false, true}) {
    CsvQuoteScanner whole(',', multi_line);
    auto expected = whole.Scan(input);
    if (!expected) expected = whole.Finish();
    ASSERT_TRUE(expected.has_value());
    for (size_t step = 1; step <= 4; ++step) {
      CsvQuoteScanner pieces(',', multi_line);
      std::optional<std::string> got;
      for (size_t i = 0; i < input.size() && !got; i += step) {
        got = pieces.Scan(std::string_view(input).substr(i, step));
      }
      if (!got) got = pieces.Finish();
      EXPECT_EQ(got, expected) << "step " << step;
    }
  }
  // "\r\n" is one line end, a lone "\r" another: the quote opens on line 2 (strict) and
  // the unterminated one on line 4 (multiLine).
  CsvQuoteScanner strict(',', false);
  EXPECT_THAT(strict.Scan(input).value_or(""), HasSubstr("line 2:"));
  CsvQuoteScanner multi(',', true);
  EXPECT_FALSE(multi.Scan(input));
  EXPECT_THAT(multi.Finish().value_or(""), HasSubstr("line 4:"));
}

TEST(InputUtf8Test, JsonInvalidUtf8IsRefusedNamingLineAndColumn) {
  TempDir dir;
  std::string path = dir.Join("in.json");
  WriteTextFile(path,
                "{\"s\":\"ok\"}\n{\"s\":\"a\xFF"
                "b\"}\n");
  auto read = ReadAll(path, InputOptions{});
  ASSERT_FALSE(read) << "stored as-is";
  EXPECT_EQ(read.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(read.error().message, HasSubstr("in.json', line 2, column 8"));
  EXPECT_THAT(read.error().message, HasSubstr("\\xFF"));
  EXPECT_THAT(read.error().message, HasSubstr("--invalid-utf8 replace"));
}

TEST(InputUtf8Test, ReplaceStoresTheReplacementCharacter) {
  TempDir dir;
  std::string json = dir.Join("in.json");
  WriteTextFile(json,
                "{\"s\":\"a\xFF"
                "b\xE2\x82\"}\n");
  std::string csv = dir.Join("in.csv");
  WriteTextFile(csv,
                "s\na\xFF"
                "b\xE2\x82\n");
  InputOptions options;
  options.invalid_utf8 = InputOptions::InvalidUtf8::kReplace;
  for (const auto& path : {json, csv}) {
    auto read = ReadAll(path, options);
    ASSERT_TRUE(read) << read.error().ToString();
    EXPECT_EQ(StringAt(*read, 0, 0),
              "a\xEF\xBF\xBD"
              "b\xEF\xBF\xBD")
        << path;
  }
}

TEST(InputUtf8Test, CsvHeaderAndValuesAreChecked) {
  TempDir dir;
  std::string path = dir.Join("in.csv");
  WriteTextFile(path, "id,n\xC3\n1,a\n");
  auto header = ReadAll(path, InputOptions{});
  ASSERT_FALSE(header);
  EXPECT_THAT(header.error().message, HasSubstr("line 1, column 5"));
  WriteTextFile(path, "id,name\n1,caf\xC3\xA9\n2,\xED\xA0\x80\n");  // a surrogate
  auto value = ReadAll(path, InputOptions{});
  ASSERT_FALSE(value);
  EXPECT_THAT(value.error().message, HasSubstr("line 3, column 3"));
}

TEST(InputUtf8Test, ParquetStringColumnWithInvalidUtf8IsRefused) {
  TempDir dir;
  std::string path = dir.Join("in.parquet");
  arrow::StringBuilder b;
  ASSERT_TRUE(b.Append("fine").ok());
  ASSERT_TRUE(b.Append("bad\xFF").ok());
  std::shared_ptr<arrow::Array> s;
  ASSERT_TRUE(b.Finish(&s).ok());
  WriteParquet(path, arrow::RecordBatch::Make(
                         arrow::schema({arrow::field("s", arrow::utf8())}), 2, {s}));
  auto read = ReadAll(path, InputOptions{});
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(read.error().message, HasSubstr("row 2, column 's'"));
}

TEST(CheckedTextStreamTest, CharactersSplitAcrossReadsPassUnchanged) {
  const std::string text = "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80\nnext\n";
  for (bool replace : {false, true}) {
    TextStreamChecks checks;
    checks.path = "mem";
    checks.replace_invalid_utf8 = replace;
    auto stream = MakeCheckedTextStream(
        std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(text)),
        checks);
    std::string out;
    while (true) {
      auto chunk = stream->Read(1);
      ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
      if ((*chunk)->size() == 0) break;
      out += (*chunk)->ToString();
    }
    EXPECT_EQ(out, text);
  }
}

TEST(CheckedTextStreamTest, ReadsAreFullBlocksUntilTheEnd) {
  // A character cut by a chunk boundary is carried to the next chunk; the Read after it
  // must still be a full block, or Arrow's reader sees a record straddling blocks.
  std::string text;
  for (int i = 0; i < 200; ++i) text += "caf\xC3\xA9,\xE2\x82\xAC\n";
  for (int64_t block : {5, 7, 64}) {
    auto stream = MakeCheckedTextStream(
        std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(text)),
        TextStreamChecks{});
    std::string out;
    while (true) {
      auto chunk = stream->Read(block);
      ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
      if ((*chunk)->size() == 0) break;
      out += (*chunk)->ToString();
      if (out.size() < text.size()) {
        EXPECT_EQ((*chunk)->size(), block) << "at byte " << out.size();
      }
    }
    EXPECT_EQ(out, text);
  }
}

TEST(InputUtf8Test, MultiByteCharactersAcrossReaderBlocksReadEveryRow) {
  TempDir dir;
  std::string path = dir.Join("in.csv");
  std::string csv = "id,note\n";
  const int rows = 60000;  // > 2 MiB: several 1 MiB reader blocks
  for (int i = 0; i < rows; ++i) {
    csv +=
        std::to_string(i) + ",\"caf\xC3\xA9 \xE2\x82\xAC " + std::to_string(i) + "\"\n";
  }
  WriteTextFile(path, csv);
  auto read = ReadAll(path, InputOptions{});
  ASSERT_TRUE(read) << read.error().ToString();
  EXPECT_EQ(Rows(*read), rows);
}

TEST(InputJsonTest, LineLongerThanTheBlockNamesTheLineAndTheOption) {
  TempDir dir;
  std::string path = dir.Join("in.json");
  WriteTextFile(path, "{\"s\":\"a\"}\n{\"s\":\"" + std::string(5000, 'x') + "\"}\n");
  InputOptions options;
  options.json_block_size = 1024;
  auto read = ReadAll(path, options);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(read.error().message, HasSubstr("in.json', line 2"));
  EXPECT_THAT(read.error().message, HasSubstr("1024 bytes"));
  EXPECT_THAT(read.error().message, HasSubstr("--json-block-size"));
  EXPECT_THAT(read.error().message, Not(HasSubstr("straddl")));
  options.json_block_size = 8192;
  auto raised = ReadAll(path, options);
  ASSERT_TRUE(raised) << raised.error().ToString();
  EXPECT_EQ(Rows(*raised), 2);
}

TEST(InputMessagesTest, ValuesAndFileNamesWithTerminalEscapesAreEscaped) {
  TempDir dir;
  const std::string esc = "\x1b[31m";
  std::string csv = dir.Join("in" + esc + ".csv");
  WriteTextFile(csv, "id\n" + esc + std::string(1000, 'z') + "\n");
  std::string json = dir.Join("in" + esc + ".json");
  WriteTextFile(json, "{\"id\":\"" + esc + std::string(1000, 'z') + "\"}\n");
  InputOptions options;
  options.type_hint = Ddl("id BIGINT");
  for (const auto& path : {csv, json}) {
    auto read = ReadAll(path, options);
    ASSERT_FALSE(read) << path;
    const std::string& m = read.error().message;
    EXPECT_EQ(m.find('\x1b'), std::string::npos) << m;
    EXPECT_THAT(m, HasSubstr("\\x1B[31m"));
    EXPECT_LT(m.size(), 900u) << m;
  }
}

TEST(InputMessagesTest, ArrowCsvErrorsNameTheFileAndWhatToDo) {
  TempDir dir;
  std::string path = dir.Join("in.csv");
  WriteTextFile(path, "a,b\n1,2\n3,4,5\n");
  auto read = ReadAll(path, InputOptions{});
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message, HasSubstr("in.csv"));
  EXPECT_THAT(read.error().message, HasSubstr("as many fields as the header"));
  WriteTextFile(path, "");
  auto empty = ReadAll(path, InputOptions{});
  ASSERT_FALSE(empty);
  EXPECT_THAT(empty.error().message, HasSubstr("in.csv"));
  EXPECT_THAT(empty.error().message, HasSubstr("header"));
}

TEST(InputMessagesTest, ParquetErrorsSayWhatIsWrongWithTheFile) {
  TempDir dir;
  std::string path = dir.Join("in.parquet");
  WriteTextFile(path, "id,name\n1,a\n");
  auto not_parquet = ReadAll(path, InputOptions{});
  ASSERT_FALSE(not_parquet);
  EXPECT_THAT(not_parquet.error().message, HasSubstr("in.parquet"));
  EXPECT_THAT(not_parquet.error().message, HasSubstr("the file is not Parquet"));
  WriteTextFile(path, "");
  auto empty = ReadAll(path, InputOptions{});
  ASSERT_FALSE(empty);
  EXPECT_THAT(empty.error().message, HasSubstr("empty"));
}

}  // namespace
}  // namespace deltaguard

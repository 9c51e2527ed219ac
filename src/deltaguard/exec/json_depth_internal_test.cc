#include "deltaguard/exec/json_depth_internal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "deltaguard/exec/input_source.h"
#include "deltaguard/io/parquet/test_util_internal.h"

namespace deltaguard {
namespace {

using ::deltaguard::testing::TempDir;
using ::deltaguard::testing::WriteTextFile;
using ::testing::HasSubstr;

std::string Record(int depth) {  // the record object plus depth - 1 nested arrays
  return R"({"a": )" + std::string(depth - 1, '[') + "1" + std::string(depth - 1, ']') +
         "}\n";
}

TEST(JsonDepthScannerTest, ChunksMayEndInsideStringsAndEscapes) {
  internal::JsonDepthScanner scanner(2);
  EXPECT_TRUE(scanner.Feed(R"({"a": "[[\)"));
  EXPECT_TRUE(scanner.Feed(R"(" [[[", "b": [1]})"));
  EXPECT_TRUE(scanner.Feed("\n{\"c\": [1]}"));  // a new line starts at depth 0
  EXPECT_FALSE(scanner.Feed("\n[[["));
  EXPECT_EQ(scanner.line(), 3);
}

TEST(JsonDepthScannerTest, DeepInputIsRefusedBeforeArrowNamingFileAndLine) {
  TempDir dir;
  std::string path = dir.Join("deep.json");
  WriteTextFile(path, Record(2) + Record(kMaxInputJsonDepth + 1));
  Status st = internal::CheckJsonInputDepth(path);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(st.error().message, HasSubstr("deep.json' line 2"));
  EXPECT_THAT(st.error().message, HasSubstr("deeper than 65 levels"));
  // Through the input reader (Arrow's JSON reader crashed on 5000 levels of objects).
  std::string objects = dir.Join("objects.json");
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += R"({"a": )";
  deep += "1" + std::string(5000, '}');
  WriteTextFile(objects, R"({"a": )" + deep + "}\n");
  InputOptions options;
  auto file = InspectInput(objects, options);
  Error error{ErrorCode::kInternal, "opened"};
  if (!file) {
    error = file.error();
  } else if (auto reader = OpenInput(*file, options); !reader) {
    error = reader.error();
  }
  EXPECT_THAT(error.message, HasSubstr("objects.json' line 1"));
}

TEST(JsonDepthScannerTest, NestingADeltaColumnCanHoldIsRead) {
  TempDir dir;
  std::string path = dir.Join("ok.json");
  WriteTextFile(path, Record(kMaxInputJsonDepth));
  EXPECT_TRUE(internal::CheckJsonInputDepth(path));
}

}  // namespace
}  // namespace deltaguard

// A commit line nested deeper than kMaxJsonDepth is a clear kCorruptLog naming the
// file and line; before it was parsed recursively and crashed the process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "deltaguard/log/actions.h"
#include "deltaguard/util/depth_guard.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

std::string Nested(int depth) {
  return R"({"commitInfo":{"x":)" + std::string(depth, '[') + std::string(depth, ']') +
         R"(,"y":1}})";
}

TEST(LogJsonDepthTest, DeepCommitLineIsCorruptLogNotACrash) {
  auto parsed =
      ParseActionLine(Nested(2000000), "_delta_log/00000000000000000003.json", 7);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(parsed.error().message, HasSubstr("00000000000000000003.json' line 7"));
  EXPECT_THAT(parsed.error().message, HasSubstr("deeper than 1000 levels"));
}

TEST(LogJsonDepthTest, NestingUpToTheLimitIsRead) {
  // The commitInfo object and the line's object are two levels.
  auto parsed = ParseActionLine(Nested(kMaxJsonDepth - 2), "00.json", 1);
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  ASSERT_TRUE(parsed->has_value());
  EXPECT_TRUE(std::holds_alternative<CommitInfo>(**parsed));
}

}  // namespace
}  // namespace deltaguard

#include <gtest/gtest.h>

#include <string>

#include "deltaguard/exec/datetime_format.h"

namespace deltaguard {
namespace {

constexpr int64_t kSecond = 1'000'000;

std::string Format(int64_t micros, const std::string& pattern) {
  auto r = FormatWithPattern(micros, pattern);
  return r ? *r : "ERROR: " + r.error().message;
}

// 2024-03-05 13:45:10.123456 UTC, a Tuesday
constexpr int64_t kTuesday = 1709646310LL * kSecond + 123456;

TEST(DatetimePrintTest, NumericFieldsPadToTheLetterCount) {
  EXPECT_EQ(Format(kTuesday, "yyyy-MM-dd HH:mm:ss"), "2024-03-05 13:45:10");
  EXPECT_EQ(Format(kTuesday, "y-M-d H:m:s"), "2024-3-5 13:45:10");
  EXPECT_EQ(Format(kTuesday, "yy DDD D"), "24 065 65");
  EXPECT_EQ(Format(kTuesday, "S SSS SSSSSS SSSSSSSS"), "1 123 123456 12345600");
}

TEST(DatetimePrintTest, NamesAndClocks) {
  EXPECT_EQ(Format(kTuesday, "EEE EEEE MMM MMMM LLL"), "Tue Tuesday Mar March Mar");
  EXPECT_EQ(Format(kTuesday, "h:mm a K k"), "1:45 PM 1 13");
  EXPECT_EQ(Format(0, "hh a K kk"), "12 AM 0 24");
  EXPECT_EQ(Format(kTuesday, "Q QQ QQQ QQQQ"), "1 01 Q1 1st quarter");
  EXPECT_EQ(Format(kTuesday, "G GGGG"), "AD Anno Domini");
}

TEST(DatetimePrintTest, ZoneLettersDescribeUtc) {
  EXPECT_EQ(Format(0, "z Z XXX x xxx"), "UTC +0000 Z +00 +00:00");
}

TEST(DatetimePrintTest, BeforeTheEpochAndQuotedText) {
  // 1969-12-31 23:59:59.5: the day and the time of day floor, not truncate
  EXPECT_EQ(Format(-kSecond / 2, "yyyy-MM-dd HH:mm:ss.SSS"), "1969-12-31 23:59:59.500");
  EXPECT_EQ(Format(0, "yyyy-MM-dd'T'HH 'o''clock' ''"), "1970-01-01T00 o'clock '");
  EXPECT_EQ(Format(0, "EEEE"), "Thursday");
}

TEST(DatetimePrintTest, BadPatternsAreErrors) {
  EXPECT_NE(Format(0, "yyyy W").find("letter 'W' is not supported"), std::string::npos);
  EXPECT_NE(Format(0, "yyyy 'open").find("unterminated quote"), std::string::npos);
  EXPECT_TRUE(CheckFormatPattern("yyyy-MM-dd").has_value());
  EXPECT_FALSE(CheckFormatPattern("Y").has_value());
}

}  // namespace
}  // namespace deltaguard

#include "deltaguard/util/timestamp_text.h"

#include <gtest/gtest.h>

namespace deltaguard {
namespace {

TEST(TimestampTextTest, AcceptedForms) {
  EXPECT_EQ(*ParseUserTimestampMillis("1970-01-02"), 86'400'000);
  EXPECT_EQ(*ParseUserTimestampMillis("2024-01-31 12:00:00"), 1'706'702'400'000);
  EXPECT_EQ(*ParseUserTimestampMillis("2024-01-31T12:00:00Z"), 1'706'702'400'000);
  EXPECT_EQ(*ParseUserTimestampMillis("2024-01-31T12:00:00.25"), 1'706'702'400'250);
  EXPECT_EQ(*ParseUserTimestampMillis("2024-01-31T13:30:00+01:30"), 1'706'702'400'000);
  EXPECT_EQ(*ParseUserTimestampMillis("2024-01-31T10:00:00-02:00"), 1'706'702'400'000);
  EXPECT_EQ(*ParseUserTimestampMillis(" 1706702400000 "), 1'706'702'400'000);
}

TEST(TimestampTextTest, RefusedFormsNameTheText) {
  for (const char* bad : {"yesterday", "2024-13-01", "2024-01-32", "2024-01-31 25:00",
                          "2024-01-31T12:00:00Zjunk", "2024-01-31 12:00:00.", "",
                          "9999999999999999999999"}) {
    auto r = ParseUserTimestampMillis(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message.find(std::string("'") + bad + "'"), std::string::npos)
        << r.error().message;
  }
}

}  // namespace
}  // namespace deltaguard

#include "deltaguard/schema/column_path.h"

#include <gtest/gtest.h>

namespace deltaguard {
namespace {

using Parts = std::vector<std::string>;

TEST(ColumnPathTest, SplitsDottedPaths) {
  EXPECT_EQ(*ParseColumnPath("a"), Parts({"a"}));
  EXPECT_EQ(*ParseColumnPath("a.b.c"), Parts({"a", "b", "c"}));
  EXPECT_EQ(*ParseColumnPath(" a . b "), Parts({"a", "b"}));
}

TEST(ColumnPathTest, BackticksQuoteDotsAndBackticks) {
  EXPECT_EQ(*ParseColumnPath("`a.b`.c"), Parts({"a.b", "c"}));
  EXPECT_EQ(*ParseColumnPath("`we``ird`"), Parts({"we`ird"}));
}

TEST(ColumnPathTest, RejectsMalformedPaths) {
  for (const char* bad : {"", "a.", ".a", "a..b", "`a", "a.`b"}) {
    auto r = ParseColumnPath(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << bad;
    EXPECT_NE(r.error().message.find("column '"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace deltaguard

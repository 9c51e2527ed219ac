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

TEST(ColumnPathTest, JoinAndChildAreRaw) {
  EXPECT_EQ(JoinColumnPath({}), "");
  EXPECT_EQ(JoinColumnPath({"a"}), "a");
  EXPECT_EQ(JoinColumnPath({"a", "b.c", "d`e"}), "a.b.c.d`e");
  EXPECT_EQ(ChildColumnPath("", "a"), "a");
  EXPECT_EQ(ChildColumnPath("a.b", "c d"), "a.b.c d");
  EXPECT_EQ(ChildColumnPath("a", ""), "a.");
}

TEST(ColumnPathTest, FormatQuotesOnlyDotsAndBackticks) {
  EXPECT_EQ(QuoteColumnPathPart("plain name"), "plain name");
  EXPECT_EQ(QuoteColumnPathPart("a.b"), "`a.b`");
  EXPECT_EQ(QuoteColumnPathPart("we`ird"), "`we``ird`");
  EXPECT_EQ(FormatColumnPath({"s", "a.b", "c"}), "s.`a.b`.c");
  EXPECT_EQ(FormatColumnPath({}), "");
  EXPECT_EQ(FormatChildColumnPath("", "a.b"), "`a.b`");
  EXPECT_EQ(FormatChildColumnPath("s.`x.y`", "c"), "s.`x.y`.c");
  // The inverse of ParseColumnPath.
  const Parts parts{"x.y", "we`ird", "z"};
  EXPECT_EQ(*ParseColumnPath(FormatColumnPath(parts)), parts);
}

}  // namespace
}  // namespace deltaguard

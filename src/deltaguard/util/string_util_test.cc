#include "deltaguard/util/string_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace deltaguard {
namespace {

TEST(StringUtilTest, CaseFoldingIsAsciiOnly) {
  EXPECT_EQ(AsciiToLower("MiXeD_09"), "mixed_09");
  EXPECT_EQ(AsciiToUpper("MiXeD_09"), "MIXED_09");
  // Non-ASCII bytes (UTF-8 "É") are left alone.
  EXPECT_EQ(AsciiToLower("\xc3\x89T\xc3\x89"), "\xc3\x89t\xc3\x89");
  EXPECT_EQ(AsciiToLower('Q'), 'q');
  EXPECT_EQ(AsciiToLower('['), '[');
}

TEST(StringUtilTest, EqualsAndCompareIgnoreCase) {
  EXPECT_TRUE(EqualsIgnoreCase("Order_ID", "order_id"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("abc", "abd"));
  EXPECT_TRUE(StartsWithIgnoreCase("Delta.Constraints.x", "delta.constraints."));
  EXPECT_TRUE(StartsWithIgnoreCase("abc", ""));
  EXPECT_FALSE(StartsWithIgnoreCase("de", "delta"));
  EXPECT_FALSE(StartsWithIgnoreCase("delta", "deltb"));
  EXPECT_FALSE(EqualsIgnoreCase("abc", "ab"));
  EXPECT_FALSE(EqualsIgnoreCase("\xc3\xa9", "\xc3\x89"));  // é vs É: not ASCII
  EXPECT_EQ(CompareIgnoreCase("ABC", "abc"), 0);
  EXPECT_LT(CompareIgnoreCase("abc", "ABD"), 0);
  EXPECT_GT(CompareIgnoreCase("b", "A"), 0);
  EXPECT_LT(CompareIgnoreCase("ab", "ABC"), 0);
  EXPECT_GT(CompareIgnoreCase("abc", "AB"), 0);
  // Bytes compare unsigned, so UTF-8 sorts after ASCII.
  EXPECT_GT(CompareIgnoreCase("\xc3\xa9", "z"), 0);
}

TEST(StringUtilTest, SplitKeepsEmptyPieces) {
  EXPECT_THAT(Split("a,b,c", ','), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Split("a,,b,", ','), ElementsAre("a", "", "b", ""));
  EXPECT_THAT(Split("", ','), ElementsAre(""));
  EXPECT_THAT(Split("abc", '/'), ElementsAre("abc"));
  EXPECT_THAT(Split("/x/y", '/'), ElementsAre("", "x", "y"));
}

TEST(StringUtilTest, TrimRemovesAsciiWhitespace) {
  EXPECT_EQ(Trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(Trim("\f\v x"), "x");
  EXPECT_EQ(Trim("   "), "");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim("x"), "x");
  EXPECT_TRUE(IsAsciiSpace('\t'));
  EXPECT_FALSE(IsAsciiSpace('_'));
}

TEST(StringUtilTest, PercentDecodeHandlesDeltaPaths) {
  // A Hive-escaped partition value (':' -> %3A) that was then URI-encoded ('%' -> %25).
  auto decoded = PercentDecode("ts=2021-09-08%2011%253A11%253A11/part-0.parquet");
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, "ts=2021-09-08 11%3A11%3A11/part-0.parquet");
  EXPECT_EQ(*PercentDecode("folder&with%25special%20char"), "folder&with%special char");
  EXPECT_EQ(*PercentDecode("a+b"), "a+b");  // '+' is not a space in a URI path
  EXPECT_EQ(*PercentDecode("%c3%A9"), "\xc3\xa9");
  EXPECT_EQ(*PercentDecode(""), "");
  for (std::string_view bad : {"%", "%2", "%zz", "abc%4"}) {
    auto r = PercentDecode(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_THAT(r.error().message, HasSubstr(std::string(bad)));
  }
}

TEST(StringUtilTest, PercentEncodePathMatchesJavaUri) {
  EXPECT_EQ(PercentEncodePath("ts=2021-09-08 11%3A11/part-0.parquet"),
            "ts=2021-09-08%2011%253A11/part-0.parquet");
  EXPECT_EQ(PercentEncodePath("folder&with%special char"),
            "folder&with%25special%20char");
  EXPECT_EQ(PercentEncodePath("a:b@c;d=e+f$g,h!i~j*k'l(m)n_o-p.q"),
            "a:b@c;d=e+f$g,h!i~j*k'l(m)n_o-p.q");
  EXPECT_EQ(PercentEncodePath("#?\"<>[]{}|\\^`"),
            "%23%3F%22%3C%3E%5B%5D%7B%7D%7C%5C%5E%60");
  EXPECT_EQ(PercentEncodePath(std::string("\x01\x7f", 2)), "%01%7F");
  EXPECT_EQ(PercentEncodePath("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 stays raw
  // Decoding inverts encoding for every byte value.
  std::string all;
  for (int c = 1; c < 256; ++c) all.push_back(static_cast<char>(c));
  auto round = PercentDecode(PercentEncodePath(all));
  ASSERT_TRUE(round);
  EXPECT_EQ(*round, all);
}

TEST(StringUtilTest, Utf8Validation) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("ascii"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"));
  struct Case {
    std::string bytes;
    size_t offset;
  };
  for (const Case& c : std::vector<Case>{{"ab\x80", 2},     // stray continuation byte
                                         {"\xc3", 0},       // truncated 2-byte sequence
                                         {"x\xe4\xb8", 1},  // truncated 3-byte sequence
                                         {"\xc0\xaf", 0},   // overlong '/'
                                         {"\xe0\x80\xaf", 0},      // overlong 3-byte form
                                         {"\xed\xa0\x80", 0},      // UTF-16 surrogate
                                         {"\xf4\x90\x80\x80", 0},  // above U+10FFFF
                                         {"\xc3\x28", 0},          // bad continuation
                                         {"ok\xff", 2}}) {
    size_t offset = 999;
    EXPECT_FALSE(IsValidUtf8(c.bytes, &offset)) << c.bytes;
    EXPECT_EQ(offset, c.offset) << c.bytes;
  }
}

TEST(StringUtilTest, JsonQuoteEscapesLikeJackson) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("a\"b\\c/d"), R"("a\"b\\c/d")");
  EXPECT_EQ(JsonQuote("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(JsonQuote(std::string("\x00\x01\x1f\x7f", 4)),
            "\"\\u0000\\u0001\\u001F\x7f\"");
  EXPECT_EQ(JsonQuote("\xe4\xb8\xad"), "\"\xe4\xb8\xad\"");
  std::string out = "x:";
  AppendJsonString(&out, "y");
  EXPECT_EQ(out, "x:\"y\"");
}

TEST(StringUtilTest, Utf8CodePointsCountsCharactersNotBytes) {
  EXPECT_EQ(Utf8CodePoints(""), 0);
  EXPECT_EQ(Utf8CodePoints("abc"), 3);
  EXPECT_EQ(Utf8CodePoints("h\xC3\xA9llo"), 5);       // é: 2 bytes
  EXPECT_EQ(Utf8CodePoints("\xF0\x9F\x98\x80!"), 2);  // U+1F600: 4 bytes
}

TEST(StringUtilTest, ReplaceInvalidUtf8ReplacesEachMaximalSubpartOnce) {
  // The same answers as Python's bytes.decode("utf-8", "replace").
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(ReplaceInvalidUtf8("plain \xC3\xA9"), "plain \xC3\xA9");
  EXPECT_EQ(ReplaceInvalidUtf8("a\xF0\x9F\x98"
                               "b"),
            "a" + r + "b");
  EXPECT_EQ(ReplaceInvalidUtf8("\xE0\x80"), r + r);                  // overlong start
  EXPECT_EQ(ReplaceInvalidUtf8("\xED\xA0\x80"), r + r + r);          // a surrogate
  EXPECT_EQ(ReplaceInvalidUtf8("\xC0\xAF"), r + r);                  // overlong '/'
  EXPECT_EQ(ReplaceInvalidUtf8("\xF4\x90\x80\x80"), r + r + r + r);  // > U+10FFFF
  EXPECT_EQ(ReplaceInvalidUtf8("x\xE2\x82"), "x" + r);  // truncated at the end
  EXPECT_TRUE(IsValidUtf8(ReplaceInvalidUtf8("\xFF\xFE\x80 z \xC3")));
}

TEST(StringUtilTest, EscapeForMessageEscapesControlsAndBadBytesAndBoundsLength) {
  EXPECT_EQ(EscapeForMessage("caf\xC3\xA9 ok"), "caf\xC3\xA9 ok");
  EXPECT_EQ(EscapeForMessage("\x1b[31mred\x7f"), "\\x1B[31mred\\x7F");
  EXPECT_EQ(EscapeForMessage("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(EscapeForMessage("\xC2\x9B"
                             "2J"),
            "\\u009B2J");  // C1 CSI
  EXPECT_EQ(EscapeForMessage("\xE2\x80\xAE"
                             "x"),
            "\\u202Ex");  // bidi override
  EXPECT_EQ(EscapeForMessage("bad\xFF\xC3"), "bad\\xFF\\xC3");
  EXPECT_EQ(EscapeForMessage(std::string(250, 'x')),
            std::string(200, 'x') + "... (50 more bytes)");
  // A character is never cut in half.
  EXPECT_EQ(EscapeForMessage("ab\xC3\xA9", 3), "ab... (2 more bytes)");
  EXPECT_EQ(EscapeControlCharacters("line1\n\tline2 \x1b]0;t\x07"),
            "line1\n\tline2 \\x1B]0;t\\x07");
}

TEST(StringUtilTest, BacktickQuoteAlwaysQuotesAndDoublesBackticks) {
  EXPECT_EQ(BacktickQuote("id"), "`id`");
  EXPECT_EQ(BacktickQuote("a`b"), "`a``b`");
  EXPECT_EQ(BacktickQuote(""), "``");
}

TEST(StringUtilTest, TrimFractionZerosOnlyTouchesAFraction) {
  EXPECT_EQ(TrimFractionZeros("1.500"), "1.5");
  EXPECT_EQ(TrimFractionZeros("2.000"), "2");
  EXPECT_EQ(TrimFractionZeros("2024-01-02 03:04:05.120000"), "2024-01-02 03:04:05.12");
  EXPECT_EQ(TrimFractionZeros("100"), "100");
  EXPECT_EQ(TrimFractionZeros("-0.0"), "-0");
}

}  // namespace
}  // namespace deltaguard

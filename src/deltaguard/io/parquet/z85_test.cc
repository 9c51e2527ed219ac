#include "deltaguard/io/parquet/z85.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace deltaguard {
namespace {

TEST(Z85Test, DecodesTheRfcHelloWorldVector) {
  // ZeroMQ RFC 32 test vector.
  const std::string bytes("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8);
  auto decoded = Z85Decode("HelloWorld");
  ASSERT_TRUE(decoded) << decoded.error().ToString();
  EXPECT_EQ(*decoded, bytes);
  EXPECT_EQ(Z85Encode(bytes), "HelloWorld");
}

TEST(Z85Test, DecodesTheProtocolExampleUuid) {
  // PROTOCOL.md "Deletion Vector Descriptor Schema" example: pathOrInlineDv
  // "ab^-aqEH.-t@S}K{vb[*k^" is the prefix "ab" plus this UUID.
  auto uuid = Z85DecodeUuid("^-aqEH.-t@S}K{vb[*k^");
  ASSERT_TRUE(uuid) << uuid.error().ToString();
  EXPECT_EQ(*uuid, "d2c639aa-8816-431a-aaf6-d3fe2512ff61");
}

TEST(Z85Test, RoundTripsAllByteValues) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  std::string text = Z85Encode(bytes);
  EXPECT_EQ(text.size(), 320u);
  auto back = Z85Decode(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, bytes);
}

TEST(Z85Test, PadsUnalignedInputWithZeros) {
  std::string text = Z85Encode("abcde");  // 5 bytes -> padded to 8
  EXPECT_EQ(text.size(), 10u);
  auto back = Z85Decode(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, std::string("abcde\0\0\0", 8));
}

TEST(Z85Test, RejectsBadLengthCharacterAndOverflow) {
  auto bad_length = Z85Decode("Hello");
  ASSERT_TRUE(bad_length);  // 5 chars is fine
  auto short_text = Z85Decode("Hell");
  ASSERT_FALSE(short_text);
  EXPECT_EQ(short_text.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(short_text.error().message, HasSubstr("multiple of 5"));

  auto bad_char = Z85Decode("Hell~");
  ASSERT_FALSE(bad_char);
  EXPECT_THAT(bad_char.error().message, HasSubstr("bad character '~'"));

  // '#' is digit 84: 84 * (85^4 + 85^3 + ...) = 4437053124 > 2^32 - 1. Delta's
  // decoder keeps the low 32 bits (0x08780EC4), and Delta writers produce such groups
  // in the padding of unaligned inline deletion vectors (delta-kernel-rs's
  // cdf-table-with-dv, version 5), so this reads them the same way.
  auto overflow = Z85Decode("#####");
  ASSERT_TRUE(overflow) << overflow.error().ToString();
  EXPECT_EQ(*overflow, std::string("\x08\x78\x0e\xc4", 4));

  auto short_uuid = Z85DecodeUuid("abc");
  ASSERT_FALSE(short_uuid);
  EXPECT_THAT(short_uuid.error().message, HasSubstr("expected 20"));
}

}  // namespace
}  // namespace deltaguard

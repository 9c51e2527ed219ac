#include "deltaguard/io/parquet/deletion_vector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/io/parquet/z85.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

// 16 UUID bytes and their canonical text.
const std::string kUuidBytes(
    "\xd2\xc6\x39\xaa\x88\x16\x43\x1a\xaa\xf6\xd3\xfe\x25\x12\xff\x61", 16);
constexpr char kUuidText[] = "d2c639aa-8816-431a-aaf6-d3fe2512ff61";

DeletionVector MakeDv(std::initializer_list<uint64_t> rows) {
  DeletionVector dv;
  for (uint64_t r : rows) dv.Add(r);
  return dv;
}

TEST(Crc32Test, MatchesTheStandardCheckValue) {
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(Crc32(""), 0u);
}

TEST(DeletionVectorTest, AddContainsCardinalityAndRanges) {
  DeletionVector dv = MakeDv({3, 1, 70000, (uint64_t{1} << 32) + 5});
  EXPECT_EQ(dv.Cardinality(), 4u);
  EXPECT_TRUE(dv.Contains(1));
  EXPECT_TRUE(dv.Contains(70000));
  EXPECT_TRUE(dv.Contains((uint64_t{1} << 32) + 5));
  EXPECT_FALSE(dv.Contains(2));
  EXPECT_FALSE(dv.Contains(5));  // same low bits as the high-bucket row
  EXPECT_THAT(dv.RowsInRange(0, 4), ElementsAre(1, 3));
  EXPECT_THAT(dv.RowsInRange(2, 70001), ElementsAre(3, 70000));
  EXPECT_THAT(dv.RowsInRange(70001, uint64_t{1} << 40),
              ElementsAre((uint64_t{1} << 32) + 5));
  EXPECT_TRUE(dv.RowsInRange(4, 4).empty());
}

TEST(DeletionVectorTest, SerializesThePortableRoaringBitmapArrayLayout) {
  DeletionVector dv = MakeDv({1, 2, (uint64_t{2} << 32) + 7});
  std::string bytes = dv.Serialize();
  ASSERT_GE(bytes.size(), 12u);
  // Magic 1681511377 = 0x6439D3D1, little-endian; then 2 buckets as int64 LE.
  EXPECT_EQ(bytes.substr(0, 4), std::string("\xD1\xD3\x39\x64", 4));
  EXPECT_EQ(bytes.substr(4, 8), std::string("\x02\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(bytes.substr(12, 4), std::string("\0\0\0\0", 4));  // first key 0
  auto back = DeletionVector::Deserialize(bytes, "test");
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(back->Cardinality(), 3u);
  EXPECT_THAT(back->RowsInRange(0, uint64_t{3} << 32),
              ElementsAre(1, 2, (uint64_t{2} << 32) + 7));
}

TEST(DeletionVectorTest, DecodesARealDatabricksPayload) {
  // One bucket, a no-run roaring bitmap with one array container holding row 1.
  const std::string hex =
      "d1d339640100000000000000000000003a3000000100000000000000100000000100";
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  auto dv = DeletionVector::Deserialize(bytes, "payload");
  ASSERT_TRUE(dv) << dv.error().ToString();
  EXPECT_EQ(dv->Cardinality(), 1u);
  EXPECT_TRUE(dv->Contains(1));
}

TEST(DeletionVectorTest, DeserializeRejectsMalformedPayloads) {
  std::string good = MakeDv({5, 6}).Serialize();

  auto bad_magic =
      DeletionVector::Deserialize(std::string("\1\2\3\4") + good.substr(4), "dv");
  ASSERT_FALSE(bad_magic);
  EXPECT_EQ(bad_magic.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(bad_magic.error().message, HasSubstr("magic number"));

  auto native = DeletionVector::Deserialize(
      std::string("\xD0\xD3\x39\x64", 4) + good.substr(4), "dv");
  ASSERT_FALSE(native);
  EXPECT_EQ(native.error().code, ErrorCode::kUnsupportedFeature);

  auto truncated = DeletionVector::Deserialize(good.substr(0, good.size() - 3), "dv");
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().code, ErrorCode::kCorruptData);

  auto trailing = DeletionVector::Deserialize(good + "xx", "dv");
  ASSERT_FALSE(trailing);
  EXPECT_THAT(trailing.error().message, HasSubstr("trailing"));

  auto huge_count = DeletionVector::Deserialize(
      good.substr(0, 4) + std::string("\xff\xff\xff\xff\0\0\0\0", 8) + good.substr(12),
      "dv");
  ASSERT_FALSE(huge_count);
  EXPECT_EQ(huge_count.error().code, ErrorCode::kCorruptData);
}

TEST(DeletionVectorPathTest, UuidRelativePathUsesPrefixAndDecodedUuid) {
  DeletionVectorDescriptor d;
  d.storage_type = 'u';
  d.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
  auto path = DeletionVectorPath(d, "/tables/t");
  ASSERT_TRUE(path) << path.error().ToString();
  EXPECT_EQ(*path, std::string("/tables/t/ab/deletion_vector_") + kUuidText + ".bin");

  d.path_or_inline_dv = Z85Encode(kUuidBytes);  // no prefix
  path = DeletionVectorPath(d, "/tables/t");
  ASSERT_TRUE(path);
  EXPECT_EQ(*path, std::string("/tables/t/deletion_vector_") + kUuidText + ".bin");
}

TEST(DeletionVectorPathTest, AbsolutePathsAreDecodedFileUris) {
  DeletionVectorDescriptor d;
  d.storage_type = 'p';
  d.path_or_inline_dv = "file:/data/my%20dir/dv.bin";
  auto path = DeletionVectorPath(d, "/t");
  ASSERT_TRUE(path);
  EXPECT_EQ(*path, "/data/my dir/dv.bin");
  d.path_or_inline_dv = "file:///data/dv.bin";
  EXPECT_EQ(*DeletionVectorPath(d, "/t"), "/data/dv.bin");
  d.path_or_inline_dv = "file:/data/bad%zzescape.bin";
  auto bad_escape = DeletionVectorPath(d, "/t");
  ASSERT_FALSE(bad_escape);
  EXPECT_EQ(bad_escape.error().code, ErrorCode::kCorruptLog);
  d.path_or_inline_dv = "s3://bucket/dv.bin";
  auto remote = DeletionVectorPath(d, "/t");
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error().code, ErrorCode::kUnsupportedFeature);
  d.storage_type = 'u';
  d.path_or_inline_dv = "short";
  auto short_path = DeletionVectorPath(d, "/t");
  ASSERT_FALSE(short_path);
  EXPECT_EQ(short_path.error().code, ErrorCode::kCorruptLog);
}

TEST(LoadDeletionVectorTest, InlineDescriptor) {
  std::string payload = MakeDv({0, 9}).Serialize();
  DeletionVectorDescriptor d;
  d.storage_type = 'i';
  d.path_or_inline_dv = Z85Encode(payload);
  d.size_in_bytes = static_cast<int32_t>(payload.size());
  d.cardinality = 2;
  auto fs = MakeLocalFileSystem();
  auto dv = LoadDeletionVector(*fs, d, "/nonexistent");
  ASSERT_TRUE(dv) << dv.error().ToString();
  EXPECT_THAT(dv->RowsInRange(0, 100), ElementsAre(0, 9));

  d.cardinality = 3;
  auto wrong = LoadDeletionVector(*fs, d, "/nonexistent", "part-0.parquet");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(wrong.error().message, HasSubstr("cardinality 3"));
  EXPECT_THAT(wrong.error().message, HasSubstr("part-0.parquet"));
}

class DvFileTest : public ::testing::Test {
 protected:
  DeletionVectorDescriptor Descriptor(const std::string& payload, int64_t cardinality) {
    DeletionVectorDescriptor d;
    d.storage_type = 'u';
    d.path_or_inline_dv = "xy" + Z85Encode(kUuidBytes);
    d.offset = 1;
    d.size_in_bytes = static_cast<int32_t>(payload.size());
    d.cardinality = cardinality;
    return d;
  }
  std::string DvPath() const {
    return dir_.Join(std::string("xy/deletion_vector_") + kUuidText + ".bin");
  }
  TempDir dir_;
  FileSystemRef fs_ = MakeLocalFileSystem();
};

TEST_F(DvFileTest, ReadsAndVerifiesAnOnDiskDeletionVector) {
  std::string payload = MakeDv({2, 4, 8}).Serialize();
  WriteTextFile(DvPath(), EncodeDeletionVectorFile(payload));
  auto dv = LoadDeletionVector(*fs_, Descriptor(payload, 3), dir_.path());
  ASSERT_TRUE(dv) << dv.error().ToString();
  EXPECT_THAT(dv->RowsInRange(0, 10), ElementsAre(2, 4, 8));
}

TEST_F(DvFileTest, ReadsASecondDeletionVectorAtAnOffset) {
  std::string first = MakeDv({1}).Serialize();
  std::string second = MakeDv({7, 8}).Serialize();
  // Two DVs in one file: version byte, then [size, bitmap, crc] twice.
  std::string file = EncodeDeletionVectorFile(first);
  std::string tail = EncodeDeletionVectorFile(second).substr(1);
  int32_t offset = static_cast<int32_t>(file.size());
  WriteTextFile(DvPath(), file + tail);
  DeletionVectorDescriptor d = Descriptor(second, 2);
  d.offset = offset;
  auto dv = LoadDeletionVector(*fs_, d, dir_.path());
  ASSERT_TRUE(dv) << dv.error().ToString();
  EXPECT_THAT(dv->RowsInRange(0, 10), ElementsAre(7, 8));
}

TEST_F(DvFileTest, ChecksumMismatchIsCorruptDataNamingTheFile) {
  std::string payload = MakeDv({2, 4, 8}).Serialize();
  std::string file = EncodeDeletionVectorFile(payload);
  file[file.size() - 1] ^= 0x55;
  WriteTextFile(DvPath(), file);
  auto dv = LoadDeletionVector(*fs_, Descriptor(payload, 3), dir_.path());
  ASSERT_FALSE(dv);
  EXPECT_EQ(dv.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(dv.error().message, HasSubstr("checksum"));
  EXPECT_THAT(dv.error().message, HasSubstr(DvPath()));
}

TEST_F(DvFileTest, TruncatedFileIsCorruptData) {
  std::string payload = MakeDv({2, 4, 8}).Serialize();
  std::string file = EncodeDeletionVectorFile(payload);
  WriteTextFile(DvPath(), file.substr(0, file.size() - 6));
  auto dv = LoadDeletionVector(*fs_, Descriptor(payload, 3), dir_.path());
  ASSERT_FALSE(dv);
  EXPECT_EQ(dv.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(dv.error().message, HasSubstr(DvPath()));
}

TEST_F(DvFileTest, SizeAndVersionMismatchesAreCorruptData) {
  std::string payload = MakeDv({2}).Serialize();
  std::string file = EncodeDeletionVectorFile(payload);
  WriteTextFile(DvPath(), file + "padding-to-allow-reading-more");
  DeletionVectorDescriptor d = Descriptor(payload, 1);
  d.size_in_bytes += 4;
  auto size = LoadDeletionVector(*fs_, d, dir_.path());
  ASSERT_FALSE(size);
  EXPECT_THAT(size.error().message, HasSubstr("sizeInBytes"));

  file[0] = 2;
  WriteTextFile(DvPath(), file);
  auto version = LoadDeletionVector(*fs_, Descriptor(payload, 1), dir_.path());
  ASSERT_FALSE(version);
  EXPECT_EQ(version.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(version.error().message, HasSubstr("format version 2"));
}

TEST_F(DvFileTest, MissingFileKeepsNotFound) {
  std::string payload = MakeDv({2}).Serialize();
  auto dv = LoadDeletionVector(*fs_, Descriptor(payload, 1), dir_.path());
  ASSERT_FALSE(dv);
  EXPECT_EQ(dv.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(dv.error().message, HasSubstr("deletion_vector_"));
}

TEST_F(DvFileTest, FindsDeltaTestSuiteFileNamePrefix) {
  // Delta's own test tables name DV files "test%dv%prefix-deletion_vector_<uuid>.bin".
  std::string payload = MakeDv({3}).Serialize();
  WriteTextFile(
      dir_.Join(std::string("xy/test%dv%prefix-deletion_vector_") + kUuidText + ".bin"),
      EncodeDeletionVectorFile(payload));
  auto dv = LoadDeletionVector(*fs_, Descriptor(payload, 1), dir_.path());
  ASSERT_TRUE(dv) << dv.error().ToString();
  EXPECT_TRUE(dv->Contains(3));
}

}  // namespace
}  // namespace deltaguard

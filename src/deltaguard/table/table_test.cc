#include "deltaguard/table/table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::MetadataAction;
using testing::ProtocolAction;
using testing::WriteCommit;

const char kSchema[] = R"({"type":"struct","fields":[)"
                       R"({"name":"id","type":"long","nullable":true,"metadata":{}}]})";

TEST(NormalizeTablePathTest, AbsoluteRelativeAndFileUris) {
  EXPECT_EQ(*NormalizeTablePath("/a/b/../c/"), "/a/c");
  EXPECT_EQ(*NormalizeTablePath("file:///tmp/my%20table"), "/tmp/my table");
  EXPECT_EQ(*NormalizeTablePath("file:/tmp/t/"), "/tmp/t");
  EXPECT_EQ(*NormalizeTablePath("file://localhost/tmp/t"), "/tmp/t");
  std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(*NormalizeTablePath("rel/t"), cwd + "/rel/t");
  EXPECT_EQ(*NormalizeTablePath("/"), "/");
}

TEST(NormalizeTablePathTest, RejectsEmptyAndRemoteLocations) {
  auto empty = NormalizeTablePath("");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, ErrorCode::kInvalidArgument);
  auto s3 = NormalizeTablePath("s3://bucket/table");
  ASSERT_FALSE(s3);
  EXPECT_EQ(s3.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(s3.error().message, HasSubstr("s3"));
  auto host = NormalizeTablePath("file://server/share/t");
  ASSERT_FALSE(host);
  EXPECT_THAT(host.error().message, HasSubstr("server"));
}

TEST(OpenSnapshotTest, DirectoryWithoutDeltaLogIsNotATable) {
  TempDir dir;
  auto snapshot = OpenSnapshot(dir.path());
  ASSERT_FALSE(snapshot);
  EXPECT_EQ(snapshot.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(snapshot.error().message,
            "'" + dir.path() + "' is not a Delta table: no _delta_log directory");
  auto missing = OpenSnapshot(dir.Join("does/not/exist"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST(OpenSnapshotTest, OpensByPathRelativePathAndUriAtAVersion) {
  TempDir dir;
  WriteCommit(dir.path(), 0, {ProtocolAction(1, 2), MetadataAction(kSchema)});
  WriteCommit(dir.path(), 1, {testing::AddAction("a.parquet")});
  auto latest = OpenSnapshot(dir.path() + "/");
  ASSERT_TRUE(latest) << latest.error().ToString();
  EXPECT_EQ((*latest)->version(), 1);
  EXPECT_EQ((*latest)->table_root(), dir.path());
  EXPECT_EQ((*latest)->files().size(), 1u);

  auto by_uri = OpenSnapshot("file://" + dir.path());
  ASSERT_TRUE(by_uri) << by_uri.error().ToString();
  EXPECT_EQ((*by_uri)->table_root(), dir.path());

  std::string relative =
      std::filesystem::relative(dir.path(), std::filesystem::current_path()).string();
  auto by_relative = OpenSnapshot(relative);
  ASSERT_TRUE(by_relative) << by_relative.error().ToString();
  EXPECT_EQ((*by_relative)->table_root(), dir.path());

  SnapshotSpec v0;
  v0.version = 0;
  auto old = OpenSnapshot(dir.path(), v0);
  ASSERT_TRUE(old) << old.error().ToString();
  EXPECT_EQ((*old)->version(), 0);
  EXPECT_TRUE((*old)->files().empty());
}

}  // namespace
}  // namespace deltaguard

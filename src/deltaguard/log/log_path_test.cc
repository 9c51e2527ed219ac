#include "deltaguard/log/log_path.h"

#include <gtest/gtest.h>

namespace deltaguard {
namespace {

TEST(LogPathTest, BuildsNames) {
  EXPECT_EQ(CommitFileName(42), "00000000000000000042.json");
  EXPECT_EQ(CheckpointFileName(10), "00000000000000000010.checkpoint.parquet");
  EXPECT_EQ(MultiPartCheckpointFileName(5, 2, 3),
            "00000000000000000005.checkpoint.0000000002.0000000003.parquet");
  EXPECT_EQ(VersionPrefix(7), "00000000000000000007");
}

TEST(LogPathTest, ParsesCommitAndCheckpointNames) {
  auto c = ParseLogFileName("00000000000000000042.json");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->type, LogFileType::kCommit);
  EXPECT_EQ(c->version, 42);
  EXPECT_FALSE(c->is_checkpoint());

  auto cl = ParseLogFileName("00000000000000000010.checkpoint.parquet");
  ASSERT_TRUE(cl.has_value());
  EXPECT_EQ(cl->type, LogFileType::kCheckpointClassic);
  EXPECT_EQ(cl->version, 10);
  EXPECT_TRUE(cl->is_checkpoint());

  auto mp =
      ParseLogFileName("00000000000000000005.checkpoint.0000000002.0000000003.parquet");
  ASSERT_TRUE(mp.has_value());
  EXPECT_EQ(mp->type, LogFileType::kCheckpointMultiPart);
  EXPECT_EQ(mp->part, 2);
  EXPECT_EQ(mp->num_parts, 3);

  auto v2j = ParseLogFileName(
      "00000000000000000002.checkpoint.39af70be-31c1-4e29-ac01-acfe7c9e27ba.json");
  ASSERT_TRUE(v2j.has_value());
  EXPECT_EQ(v2j->type, LogFileType::kCheckpointV2Json);
  EXPECT_EQ(v2j->version, 2);
  auto v2p = ParseLogFileName(
      "00000000000000000002.checkpoint.39af70be-31c1-4e29-ac01-acfe7c9e27ba.parquet");
  ASSERT_TRUE(v2p.has_value());
  EXPECT_EQ(v2p->type, LogFileType::kCheckpointV2Parquet);

  auto comp =
      ParseLogFileName("00000000000000000004.00000000000000000006.compacted.json");
  ASSERT_TRUE(comp.has_value());
  EXPECT_EQ(comp->type, LogFileType::kCompaction);
  EXPECT_EQ(comp->end_version, 6);

  auto crc = ParseLogFileName("00000000000000000004.crc");
  ASSERT_TRUE(crc.has_value());
  EXPECT_EQ(crc->type, LogFileType::kChecksum);
}

TEST(LogPathTest, IgnoresEverythingElse) {
  for (const char* name :
       {"_last_checkpoint", ".00000000000000000000.json.crc",
        "00000000000000000000.json.tmp",
        ".00000000000000000001.json.0123456789abcdef.tmp", "00000000000000000000.jsonx",
        "abc.json", "00000000000000000001.checkpoint.0000000003.0000000002.parquet",
        "00000000000000000001.checkpoint.0000000000.0000000002.parquet",
        "00000000000000000001.checkpoint.parquet.crc",
        "00000000000000000001.checkpoint..json",
        "00000000000000000006.00000000000000000004.compacted.json",
        "000000000000000000000000000001.json", "", "_sidecars", "_commits",
        "_staged_commits"}) {
    EXPECT_FALSE(ParseLogFileName(name).has_value()) << name;
  }
}

TEST(LogPathTest, NormalizesTableRoot) {
  EXPECT_EQ(NormalizeTableRoot("/data/t/"), "/data/t");
  EXPECT_EQ(NormalizeTableRoot("/data/t//"), "/data/t");
  EXPECT_EQ(NormalizeTableRoot("/"), "/");
  EXPECT_EQ(NormalizeTableRoot("file:///data/t/"), "/data/t");
  EXPECT_EQ(NormalizeTableRoot("file:/data/my%20t"), "/data/my t");
  EXPECT_EQ(NormalizeTableRoot("file://localhost/data/t"), "/data/t");
  EXPECT_EQ(NormalizeTableRoot("relative/t"), "relative/t");
  EXPECT_EQ(LogDirOf("/data/t"), "/data/t/_delta_log");
  EXPECT_EQ(BaseName("/a/b/c.json"), "c.json");
  EXPECT_EQ(BaseName("c.json"), "c.json");
}

TEST(LogPathTest, ResolvesLoggedPaths) {
  EXPECT_EQ(ResolveLogPath("/t", "a=1/part-0.parquet"), "/t/a=1/part-0.parquet");
  EXPECT_EQ(ResolveLogPath("/t/", "part-0.parquet"), "/t/part-0.parquet");
  EXPECT_EQ(ResolveLogPath("/", "part-0.parquet"), "/part-0.parquet");
  EXPECT_EQ(ResolveLogPath("", "part-0.parquet"), "part-0.parquet");
  EXPECT_EQ(ResolveLogPath("rel", "a:b.parquet"), "rel/a:b.parquet");
  // Hive-escaped ':' is URI-encoded again in the log; decode exactly once.
  EXPECT_EQ(ResolveLogPath("/t", "x=2021-09-08%2011%253A11/p%20q.parquet"),
            "/t/x=2021-09-08 11%3A11/p q.parquet");
  EXPECT_EQ(ResolveLogPath("/t", "file:///abs/p.parquet"), "/abs/p.parquet");
  EXPECT_EQ(ResolveLogPath("/t", "file:/abs/a%20b.parquet"), "/abs/a b.parquet");
  EXPECT_EQ(ResolveLogPath("/t", "/abs/p.parquet"), "/abs/p.parquet");
  EXPECT_EQ(ResolveLogPath("/t", "s3://bucket/p%20q.parquet"), "s3://bucket/p q.parquet");
  EXPECT_EQ(ResolveLogPath("/t", "100%.parquet"),
            "/t/100%.parquet");  // malformed: literal
  EXPECT_EQ(PercentDecodeLenient("a%2Fb%zz%4"), "a/b%zz%4");
  EXPECT_EQ(PercentDecodeLenient("a%2Fb"), "a/b");
}

TEST(LogPathTest, NormalizesLexically) {
  EXPECT_EQ(NormalizePathLexically("a/./b//c/"), "a/b/c");
  EXPECT_EQ(NormalizePathLexically("a/b/../c"), "a/c");
  EXPECT_EQ(NormalizePathLexically("/t/a/../b"), "/t/b");
  EXPECT_EQ(NormalizePathLexically("a/.."), "");
  EXPECT_EQ(NormalizePathLexically("/"), "/");
  EXPECT_EQ(NormalizePathLexically("../a"), std::nullopt);
  EXPECT_EQ(NormalizePathLexically("a/../../b"), std::nullopt);
  EXPECT_EQ(NormalizePathLexically("/.."), std::nullopt);
  EXPECT_EQ(NormalizePathLexically("..a/b.."), "..a/b..");  // not ".." segments
  EXPECT_TRUE(IsUnderRoot("/t/a", "/t"));
  EXPECT_TRUE(IsUnderRoot("/t", "/t"));
  EXPECT_TRUE(IsUnderRoot("/x", "/"));
  EXPECT_FALSE(IsUnderRoot("/tt/a", "/t"));
  EXPECT_FALSE(IsUnderRoot("/a", ""));
}

TEST(LogPathTest, ResolveTablePathKeepsPathsInsideTheRoot) {
  EXPECT_EQ(*ResolveTablePath("/t", "a=1/part-0.parquet"), "/t/a=1/part-0.parquet");
  EXPECT_EQ(*ResolveTablePath("/t", "a/../part-0.parquet"), "/t/part-0.parquet");
  EXPECT_EQ(*ResolveTablePath("/t", "x=a%20b/p.parquet"), "/t/x=a b/p.parquet");
  EXPECT_EQ(*ResolveTablePath("/t", "..a.parquet"), "/t/..a.parquet");
  EXPECT_EQ(*ResolveTablePath("rel", "a:b.parquet"), "rel/a:b.parquet");
  // Absolute paths and local file: URIs inside the root are allowed.
  EXPECT_EQ(*ResolveTablePath("/t", "/t/p.parquet"), "/t/p.parquet");
  EXPECT_EQ(*ResolveTablePath("/t", "file:///t/a/../p.parquet"), "/t/p.parquet");
  EXPECT_EQ(*ResolveTablePath("/t", "file:/t/a%20b.parquet"), "/t/a b.parquet");
}

TEST(LogPathTest, ResolveTablePathRefusesPathsOutsideTheRoot) {
  for (const char* path :
       {"../outside.parquet", "a/../../outside.parquet", "%2E%2E/outside.parquet",
        "a%2F..%2F..%2Foutside.parquet", "/etc/passwd", "/t/../u/p.parquet",
        "/tt/p.parquet", "file:///etc/passwd", "file:/u/p.parquet",
        "file://localhost/u/p.parquet", "s3://bucket/p.parquet", "p%00.parquet",
        "a/.."}) {
    SCOPED_TRACE(path);
    Result<std::string> r = ResolveTablePath("/t", path);
    ASSERT_FALSE(r) << *r;
    EXPECT_EQ(r.error().code, ErrorCode::kCorruptLog);
  }
  Result<std::string> r = ResolveTablePath("/t", "../x\x1b[31m.parquet");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find(R"("../x\x1b[31m.parquet")"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("climbs out of the table root \"/t\""),
            std::string::npos)
      << r.error().message;
}

TEST(LogPathTest, ResolveTablePathOptInKeepsSparkResolution) {
  LogPathPolicy policy;
  policy.allow_outside_root = true;
  EXPECT_EQ(*ResolveTablePath("/t", "/src/p.parquet", policy), "/src/p.parquet");
  EXPECT_EQ(*ResolveTablePath("/t", "s3://b/p%20q.parquet", policy),
            "s3://b/p q.parquet");
  EXPECT_EQ(*ResolveTablePath("/t", "../u/p.parquet", policy), "/t/../u/p.parquet");
  EXPECT_FALSE(ResolveTablePath("/t", "p%00.parquet", policy));
}

TEST(LogPathTest, QuoteForMessageEscapesAndBounds) {
  EXPECT_EQ(QuoteForMessage("a\"b\\c\n\xff"), R"("a\"b\\c\x0a\xff")");
  std::string q = QuoteForMessage(std::string(1000, 'a'));
  EXPECT_EQ(q.size(), 200u + 2 + 3);
  EXPECT_EQ(q.substr(q.size() - 3), "...");
}

}  // namespace
}  // namespace deltaguard

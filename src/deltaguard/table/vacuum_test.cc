#include "deltaguard/table/vacuum.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "deltaguard/log/history.h"
#include "deltaguard/log/log_test_util.h"
#include "deltaguard/table/table.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kNow = 1800000000000;  // the injected clock
constexpr int64_t kCutoff = kNow - 168 * kHour;

VacuumEntry File(std::string path, int64_t mtime, int64_t size = 10) {
  return {std::move(path), false, false, size, mtime};
}
VacuumEntry Dir(std::string path, bool not_walked = false) {
  return {std::move(path), true, not_walked, 0, 0};
}

std::vector<std::string> Paths(const VacuumPlan& plan) {
  std::vector<std::string> out;
  for (const auto& f : plan.files) out.push_back(f.path);
  return out;
}

TEST(VacuumPlanTest, RetentionEdgeIsExclusive) {
  const int64_t old = kCutoff - 1;
  VacuumPlan plan = PlanVacuum({File("old.parquet", old), File("edge.parquet", kCutoff),
                                File("new.parquet", kCutoff + 1)},
                               {}, {}, kCutoff);
  EXPECT_THAT(Paths(plan), ElementsAre("old.parquet"));
  EXPECT_EQ(plan.bytes, 10);
}

TEST(VacuumPlanTest, RetainedFilesAreNeverDeleted) {
  const int64_t old = kCutoff - 100 * kHour;
  VacuumPlan plan = PlanVacuum(
      {File("live.parquet", old), File("p=1/live.parquet", old),
       File("deletion_vector_x.bin", old), File("gone.parquet", old), Dir("p=1")},
      {"live.parquet", "p=1/live.parquet", "deletion_vector_x.bin"}, {"p"}, kCutoff);
  EXPECT_THAT(Paths(plan), ElementsAre("gone.parquet"));
  EXPECT_THAT(plan.dirs, IsEmpty());  // p=1 still holds a live file
}

TEST(VacuumPlanTest, HiddenFilesKeptExceptAbandonedTemporaries) {
  const int64_t old = kCutoff - kHour;
  VacuumPlan plan = PlanVacuum(
      {File(".part-0.parquet.0123456789abcdef.tmp", old),
       File("p=1/.part-1.parquet.fedcba9876543210.tmp", old),
       File(".part-2.parquet.fedcba9876543210.tmp", kCutoff + 1),  // fresh: a writer's
       File(".part-3.parquet.0123456789ABCDEF.tmp", old),  // not our name (upper case)
       File("_SUCCESS", old), File(".hidden.crc", old), File("_delta_log/0.json", old),
       File("_deltaguard/profile.yaml", old), File("_tmp/x.parquet", old),
       File("_change_data/cdc-0.parquet", old), File("_p=1/x.parquet", old), Dir("p=1"),
       Dir("_delta_log", true), Dir("_deltaguard", true), Dir("_change_data")},
      {}, {"p", "_p"}, kCutoff);
  EXPECT_THAT(Paths(plan), ElementsAre(".part-0.parquet.0123456789abcdef.tmp",
                                       "_change_data/cdc-0.parquet", "_p=1/x.parquet",
                                       "p=1/.part-1.parquet.fedcba9876543210.tmp"));
  EXPECT_THAT(plan.dirs, ElementsAre("_change_data", "p=1"));
}

TEST(VacuumPlanTest, EmptiedDirectoriesGoDeepestFirst) {
  const int64_t old = kCutoff - kHour;
  VacuumPlan plan = PlanVacuum(
      {Dir("a=1"), Dir("a=1/b=2"), Dir("a=1/b=3"), Dir("a=2"),
       File("a=1/b=2/x.parquet", old), File("a=1/b=3/y.parquet", kNow), Dir("empty=1")},
      {}, {"a", "b", "empty"}, kCutoff);
  EXPECT_THAT(Paths(plan), ElementsAre("a=1/b=2/x.parquet"));
  // a=1 keeps b=3 (its file is too new); a=2 and empty=1 were empty.
  EXPECT_THAT(plan.dirs, ElementsAre("a=1/b=2", "a=2", "empty=1"));
}

TEST(VacuumPlanTest, HiddenNamesFollowSpark) {
  EXPECT_TRUE(IsHiddenVacuumName("_delta_log", {}));
  EXPECT_TRUE(IsHiddenVacuumName(".x", {}));
  EXPECT_TRUE(IsHiddenVacuumName("_x=1", {"x"}));
  EXPECT_FALSE(IsHiddenVacuumName("_x=1", {"_x"}));
  EXPECT_FALSE(IsHiddenVacuumName("_change_data", {}));
  EXPECT_FALSE(IsHiddenVacuumName("part-0.parquet", {}));
  EXPECT_TRUE(IsAbandonedTempName(".part-0.parquet.0123456789abcdef.tmp"));
  EXPECT_FALSE(IsAbandonedTempName(".0123456789abcdef.tmp"));
  EXPECT_FALSE(IsAbandonedTempName(".a.0123456789abcde.tmp"));
  EXPECT_FALSE(IsAbandonedTempName("a.0123456789abcdef.tmp"));
  EXPECT_FALSE(IsAbandonedTempName(".a.0123456789abcdefg.tmp"));
}

TEST(VacuumRetentionTest, DefaultsPropertyOverrideAndSafetyCheck) {
  Metadata md;
  EXPECT_EQ(*VacuumRetentionMs(md, std::nullopt, true), 168 * kHour);
  EXPECT_EQ(*VacuumRetentionMs(md, 200.0, true), 200 * kHour);
  EXPECT_EQ(*VacuumRetentionMs(md, 167.6, true), 168 * kHour);  // rounded, as Spark
  auto short_retention = VacuumRetentionMs(md, 0.0, true);
  ASSERT_FALSE(short_retention);
  EXPECT_EQ(short_retention.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(short_retention.error().message,
              HasSubstr("DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT"));
  EXPECT_THAT(short_retention.error().message,
              HasSubstr("spark.databricks.delta.retentionDurationCheck.enabled = false"));
  EXPECT_THAT(short_retention.error().message, HasSubstr("at least 168 hours"));
  EXPECT_EQ(*VacuumRetentionMs(md, 0.0, false), 0);
  auto negative = VacuumRetentionMs(md, -1.0, false);
  ASSERT_FALSE(negative);
  EXPECT_THAT(negative.error().message, HasSubstr("NEGATIVE"));
  md.configuration.emplace_back("delta.deletedFileRetentionDuration", "interval 2 hours");
  EXPECT_EQ(*VacuumRetentionMs(md, std::nullopt, true), 2 * kHour);
  EXPECT_EQ(*VacuumRetentionMs(md, 2.0, true), 2 * kHour);
  EXPECT_FALSE(VacuumRetentionMs(md, 1.0, true));
}

// A crafted table on disk: live, tombstoned (recently and long ago), orphaned, temporary
// and hidden files; Vacuum() deletes exactly the expired ones.
class VacuumTableTest : public ::testing::Test {
 protected:
  void Touch(const std::string& rel, int64_t mtime) {
    std::string path = t_.root() + "/" + rel;
    testing::WriteText(path, "data");
    testing::SetMtime(path, mtime);
  }
  bool Exists(const std::string& rel) {
    return std::filesystem::exists(t_.root() + "/" + rel);
  }
  testing::TestTable t_;
};

TEST_F(VacuumTableTest, DeletesExpiredFilesOnly) {
  using namespace testing;  // NOLINT: test helpers
  const int64_t old = kCutoff - kHour;
  std::string recent_remove = fmt::format(
      R"({{"remove":{{"path":"recent.parquet","deletionTimestamp":{},"dataChange":true}}}})",
      kNow - kHour);
  t_.Commit(0, {CommitInfoLine("CREATE"), ProtocolLine(), MetadataLine(),
                AddLine("live.parquet"), AddLine("recent.parquet"),
                AddLine("expired.parquet")});
  t_.Commit(1, {recent_remove, RemoveLine("expired.parquet")});  // removed in 2023
  for (const char* f : {"live.parquet", "recent.parquet", "expired.parquet",
                        "orphan.parquet", ".x.parquet.0123456789abcdef.tmp",
                        "_deltaguard/profile.yaml", "_SUCCESS", "p=1/orphan.parquet"}) {
    Touch(f, old);
  }
  Touch("fresh.parquet", kNow - kHour);  // a concurrent writer's uncommitted file
  Touch(".y.parquet.0123456789abcdef.tmp", kNow - kHour);
  VacuumOptions options;
  options.now_ms = kNow;
  options.dry_run = true;
  auto dry = Vacuum(LocalFs(), t_.root(), options);
  ASSERT_TRUE(dry) << dry.error().message;
  const std::string root = std::filesystem::path(t_.root()).lexically_normal().string();
  EXPECT_THAT(dry->files, ElementsAre(root + "/.x.parquet.0123456789abcdef.tmp",
                                      root + "/expired.parquet", root + "/orphan.parquet",
                                      root + "/p=1/orphan.parquet"));
  EXPECT_TRUE(Exists("orphan.parquet"));  // a dry run deletes nothing
  EXPECT_EQ(dry->bytes, 16);

  options.dry_run = false;
  auto run = Vacuum(LocalFs(), t_.root(), options);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->files.size(), 4u);
  EXPECT_EQ(run->dirs_deleted, 1);  // p=1
  for (const char* gone :
       {"expired.parquet", "orphan.parquet", "p=1", ".x.parquet.0123456789abcdef.tmp"}) {
    EXPECT_FALSE(Exists(gone)) << gone;
  }
  for (const char* kept : {"live.parquet", "recent.parquet", "fresh.parquet",
                           ".y.parquet.0123456789abcdef.tmp", "_deltaguard/profile.yaml",
                           "_SUCCESS", "_delta_log/00000000000000000001.json"}) {
    EXPECT_TRUE(Exists(kept)) << kept;
  }
  // Spark's VACUUM START / VACUUM END commits.
  ASSERT_EQ(run->start_version, 2);
  ASSERT_EQ(run->end_version, 3);
  auto history = ReadHistory(*LocalFs(), t_.root());
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->size(), 4u);
  EXPECT_EQ((*history)[2].commit_info->operation, "VACUUM START");
  EXPECT_EQ((*history)[3].commit_info->operation, "VACUUM END");
  EXPECT_THAT((*history)[2].commit_info->raw_json,
              HasSubstr(R"("numFilesToDelete":"4")"));
}

TEST_F(VacuumTableTest, SafetyCheckAndProtocolCheck) {
  using namespace testing;  // NOLINT: test helpers
  t_.Commit(0, {ProtocolLine(3, 7, {"vacuumProtocolCheck"},
                             {"vacuumProtocolCheck", "someFutureWriterFeature"}),
                MetadataLine()});
  VacuumOptions options;
  options.now_ms = kNow;
  auto refused = Vacuum(LocalFs(), t_.root(), options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(refused.error().message, HasSubstr("vacuumProtocolCheck"));
  EXPECT_THAT(refused.error().message, HasSubstr("someFutureWriterFeature"));

  t_.Commit(1, {ProtocolLine(3, 7, {"vacuumProtocolCheck"}, {"vacuumProtocolCheck"})});
  options.retain_hours = 1;
  auto too_short = Vacuum(LocalFs(), t_.root(), options);
  ASSERT_FALSE(too_short);
  EXPECT_THAT(too_short.error().message,
              HasSubstr("DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT"));
  options.retention_check = false;
  options.logging = false;
  auto ok = Vacuum(LocalFs(), t_.root(), options);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->retention_ms, kHour);
  EXPECT_FALSE(ok->start_version.has_value());
}

}  // namespace
}  // namespace deltaguard

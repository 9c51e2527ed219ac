// Profiles kept on write, read back, and backfilled (table/profiles.h): the profile a
// write stores equals the one backfill computes from the files the commit added; a
// table created with profiles off gets them only from backfill; a corrupt profile
// table is an error, never an empty history.

#include "deltaguard/table/profiles.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "deltaguard/quality/profile_table.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/table_fixture.h"
#include "testing/temp_dir.h"

namespace deltaguard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

constexpr const char* kDdl = "id BIGINT, status STRING, amount DOUBLE";

Result<WriteResult> Append(const std::string& root, const std::string& json,
                           StringMap properties = {}) {
  std::vector<BatchSource> sources;
  sources.push_back(testing::JsonSource(kDdl, json));
  WriteOptions options;
  options.properties = std::move(properties);
  return WriteTable(MakeLocalFileSystem(), root, std::move(sources), options);
}

TEST(ProfilesTest, KeptOnWriteAndEqualToBackfill) {
  TempDir dir;
  const std::string root = dir.Join("t");
  ASSERT_TRUE(Append(root, R"([{"id": 1, "status": "new", "amount": 2.5},
                                {"id": 2, "status": null, "amount": 7.5}])"));
  ASSERT_TRUE(Append(root, R"([{"id": 3, "status": "done", "amount": 100}])"));
  auto snap = OpenSnapshot(root);
  ASSERT_TRUE(snap);
  EXPECT_TRUE(ProfilesEnabled((*snap)->metadata()));
  auto fs = MakeLocalFileSystem();
  auto stored = ReadProfiles(fs, root);
  ASSERT_TRUE(stored) << stored.error().ToString();
  ASSERT_EQ(stored->size(), 2u);
  const TableProfile& first = (*stored)[0];
  EXPECT_EQ(first.version, 0);
  EXPECT_EQ(first.operation, "WRITE");
  EXPECT_EQ(first.rows, 2);
  EXPECT_EQ(first.Column("status")->nulls, 1);
  EXPECT_DOUBLE_EQ(first.Column("amount")->mean, 5.0);
  EXPECT_EQ((*stored)[1].Column("amount")->max, 100);
  EXPECT_EQ(ReadProfiles(fs, root, 1, 1)->size(), 1u);

  auto recomputed = ProfileCommit(fs, root, 0);
  ASSERT_TRUE(recomputed) << recomputed.error().ToString();
  EXPECT_EQ(recomputed->rows, first.rows);
  for (const auto& c : first.columns) {
    const ColumnProfile* r = recomputed->Column(c.column);
    ASSERT_NE(r, nullptr) << c.column;
    EXPECT_EQ(r->nulls, c.nulls) << c.column;
    if (c.numeric_count > 0) {
      EXPECT_EQ(r->min, c.min) << c.column;
    }
    EXPECT_EQ(r->max_text, c.max_text) << c.column;
  }
  // Everything present: backfill has nothing to do.
  auto again = BackfillProfiles(fs, root);
  ASSERT_TRUE(again);
  EXPECT_THAT(again->present, ElementsAre(0, 1));
  EXPECT_TRUE(again->profiled.empty());
}

// Every kCompactProfilesEvery versions the profile table's files become one: a long
// history reads a few files, and every profile is still there, in order.
TEST(ProfilesTest, ProfileTableIsCompacted) {
  TempDir dir;
  const std::string root = dir.Join("t");
  const int commits = static_cast<int>(kCompactProfilesEvery) + 5;
  for (int i = 0; i < commits; ++i) {
    ASSERT_TRUE(
        Append(root, fmt::format(R"([{{"id": {}, "status": "s", "amount": 1}}])", i)));
  }
  auto profiles = OpenSnapshot(ProfileTablePath(root));
  ASSERT_TRUE(profiles);
  // Versions 0..32 became one file at profile-table version 32; the commits after it
  // (33 is the compaction) added one file each.
  EXPECT_EQ((*profiles)->files().size(), 1u + (commits - kCompactProfilesEvery - 1));
  EXPECT_THAT(testing::CommitInfo(ProfileTablePath(root), kCompactProfilesEvery + 1),
              HasSubstr("\"operation\":\"OPTIMIZE\""));
  auto stored = ReadProfiles(MakeLocalFileSystem(), root);
  ASSERT_TRUE(stored) << stored.error().ToString();
  ASSERT_EQ(stored->size(), static_cast<size_t>(commits));
  for (int i = 0; i < commits; ++i) {
    EXPECT_EQ((*stored)[static_cast<size_t>(i)].version, i);
    EXPECT_EQ((*stored)[static_cast<size_t>(i)].Column("id")->min, i);
  }
}

TEST(ProfilesTest, OffUntilBackfilled) {
  TempDir dir;
  const std::string root = dir.Join("t");
  ASSERT_TRUE(Append(root, R"([{"id": 1, "status": "new", "amount": 1}])",
                     {{"deltaguard.profiles", "false"}}));
  ASSERT_TRUE(Append(root, R"([{"id": 2, "status": "new", "amount": 2}])"));
  auto fs = MakeLocalFileSystem();
  EXPECT_TRUE(ReadProfiles(fs, root)->empty());
  EXPECT_FALSE(std::filesystem::exists(ProfileTablePath(root)));
  auto done = BackfillProfiles(fs, root);
  ASSERT_TRUE(done) << done.error().ToString();
  EXPECT_THAT(done->profiled, ElementsAre(0, 1));
  auto stored = ReadProfiles(fs, root);
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[1].Column("id")->min, 2);
  // The profile table is a Delta table of its own, not profiled itself.
  auto profile_table = OpenSnapshot(ProfileTablePath(root));
  ASSERT_TRUE(profile_table);
  EXPECT_FALSE(ProfilesEnabled((*profile_table)->metadata()));
}

TEST(ProfilesTest, CorruptProfileTableIsAnError) {
  TempDir dir;
  const std::string root = dir.Join("t");
  ASSERT_TRUE(Append(root, R"([{"id": 1, "status": "new", "amount": 1}])"));
  // Replace the profile table's data with a file that is not Parquet.
  for (const auto& entry : std::filesystem::directory_iterator(ProfileTablePath(root))) {
    if (entry.path().extension() == ".parquet") {
      std::filesystem::resize_file(entry.path(), 10);
    }
  }
  auto stored = ReadProfiles(MakeLocalFileSystem(), root);
  ASSERT_FALSE(stored);
  EXPECT_THAT(stored.error().ToString(), HasSubstr("_deltaguard/profiles"));
}

}  // namespace
}  // namespace deltaguard

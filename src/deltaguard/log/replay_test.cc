#include "deltaguard/log/replay.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace deltaguard {
namespace {

AddFile Add(std::string path, int64_t size = 1, std::string dv = "") {
  AddFile a;
  a.path = std::move(path);
  a.size = size;
  if (!dv.empty()) {
    a.deletion_vector = DeletionVectorDescriptor{};
    a.deletion_vector->path_or_inline_dv = std::move(dv);
  }
  return a;
}

RemoveFile Remove(std::string path, std::string dv = "") {
  RemoveFile r;
  r.path = std::move(path);
  if (!dv.empty()) {
    r.deletion_vector = DeletionVectorDescriptor{};
    r.deletion_vector->path_or_inline_dv = std::move(dv);
  }
  return r;
}

template <typename F>
std::vector<std::string> Keys(const std::vector<F>& files) {
  std::vector<std::string> out;
  for (const F& f : files) {
    out.push_back(f.path +
                  (f.deletion_vector ? "#" + f.deletion_vector->path_or_inline_dv : ""));
  }
  return out;
}

// Checkpoint rows lose to every newer commit action on their (path, dv) key, whether
// the commit action is of the same kind (the commit's row wins) or of the other kind
// (the checkpoint row disappears); rows whose key no commit touched survive.
TEST(LogReplayerTest, CommitsSupersedeCheckpointRowsOfBothKinds) {
  LogReplayer replayer("t", 2);
  std::vector<Action> v2;
  v2.emplace_back(Add("a", 5));        // re-adds a file the checkpoint has removed
  v2.emplace_back(Remove("b"));        // removes a checkpoint file
  v2.emplace_back(Add("c", 9, "d1"));  // new DV for a checkpoint file
  ASSERT_TRUE(replayer.AddCommit(2, std::move(v2)));
  std::vector<Action> v1;
  v1.emplace_back(Remove("a"));        // older than v2's add: ignored
  v1.emplace_back(Add("e", 3));        // older commit, untouched by v2
  v1.emplace_back(Remove("f", "d2"));  // removes the DV variant of f only
  ASSERT_TRUE(replayer.AddCommit(1, std::move(v1)));
  EXPECT_EQ(replayer.num_commit_adds(), 3u);

  CheckpointActions cp;
  cp.adds = {Add("b"),          Add("c", 1, "d1"), Add("c"),
             Add("f", 1, "d2"), Add("f"),          Add("g")};
  cp.removes = {Remove("a"), Remove("h"), Remove("e")};
  ASSERT_TRUE(replayer.AddCheckpoint(std::move(cp)));
  ReplayState st = std::move(replayer).Finish();

  EXPECT_THAT(Keys(st.files), ElementsAre("a", "c", "c#d1", "e", "f", "g"));
  EXPECT_EQ(st.files[0].size, 5);  // from v2
  EXPECT_EQ(st.files[2].size, 9);  // from v2, not the checkpoint's row
  EXPECT_EQ(st.files[3].size, 3);  // from v1
  EXPECT_THAT(Keys(st.tombstones), ElementsAre("b", "f#d2", "h"));
}

// A file removed by a commit and sorted first among the checkpoint's rows (the first
// kept row is then not the first sorted one).
TEST(LogReplayerTest, HiddenRowsAtTheStartOfTheOrder) {
  LogReplayer replayer("t", 1);
  std::vector<Action> v1;
  v1.emplace_back(Remove("a"));
  v1.emplace_back(Remove("b"));
  ASSERT_TRUE(replayer.AddCommit(1, std::move(v1)));
  CheckpointActions cp;
  cp.adds = {Add("c"), Add("b"), Add("a"), Add("a")};
  ASSERT_TRUE(replayer.AddCheckpoint(std::move(cp)));
  ReplayState st = std::move(replayer).Finish();
  EXPECT_THAT(Keys(st.files), ElementsAre("c"));
  EXPECT_THAT(Keys(st.tombstones), ElementsAre("a", "b"));
}

}  // namespace
}  // namespace deltaguard

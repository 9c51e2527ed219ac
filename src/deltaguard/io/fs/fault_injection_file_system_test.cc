#include "deltaguard/io/fs/fault_injection_file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>
#include <tuple>

#include "testing/matchers.h"

namespace deltaguard {
namespace {

namespace stdfs = std::filesystem;

constexpr std::string_view kData = "0123456789abcdef";  // 16 bytes: torn prefix is 8

class FaultFsTestBase {
 protected:
  void MakeDir(bool count_reads = false) {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/deltaguard_ffs_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    local_ = MakeLocalFileSystem();
    fs_ = std::make_shared<FaultInjectionFileSystem>(local_, count_reads);
  }
  void RemoveDir() {
    std::error_code ec;
    stdfs::remove_all(dir_, ec);
  }
  std::string Path(std::string_view name) const { return JoinPath(dir_, name); }
  // Reads through the inner FS, bypassing any fault; "<absent>" when missing.
  std::string Contents(std::string_view name) const {
    auto r = local_->ReadFile(Path(name));
    return r ? *r : std::string("<absent>");
  }

  std::string dir_;
  FileSystemRef local_;
  std::shared_ptr<FaultInjectionFileSystem> fs_;
};

class FaultInjectionFileSystemTest : public FaultFsTestBase, public ::testing::Test {
 protected:
  void SetUp() override { MakeDir(); }
  void TearDown() override { RemoveDir(); }
};

TEST_F(FaultInjectionFileSystemTest, PassesThroughAndLogsMutations) {
  ASSERT_TRUE(fs_->CreateDirs(Path("t/_delta_log")));
  ASSERT_TRUE(fs_->PutIfAbsent(Path("t/_delta_log/0.json"), "commit"));
  ASSERT_TRUE(fs_->Write(Path("t/data"), "rows"));
  ASSERT_TRUE(fs_->Delete(Path("t/data")));
  // Reads pass through and are not counted by default.
  auto read = fs_->ReadFile(Path("t/_delta_log/0.json"));
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, "commit");
  auto exists = fs_->Exists(Path("t/data"));
  ASSERT_TRUE(exists);
  EXPECT_FALSE(*exists);
  auto listed = fs_->List(Path("t/_delta_log"));
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 1u);
  EXPECT_EQ(fs_->num_mutations(), 4);
  EXPECT_EQ(fs_->num_ops(), 4);
  EXPECT_FALSE(fs_->crashed());
  EXPECT_THAT(fs_->ops(),
              ElementsAre("create_dirs " + Path("t/_delta_log"),
                          "put_if_absent " + Path("t/_delta_log/0.json"),
                          "write " + Path("t/data"), "delete " + Path("t/data")));
}

TEST_F(FaultInjectionFileSystemTest, InnerErrorsPassThroughUnchanged) {
  ASSERT_TRUE(fs_->PutIfAbsent(Path("x"), "a"));
  auto again = fs_->PutIfAbsent(Path("x"), "b");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kAlreadyExists);
  EXPECT_EQ(Contents("x"), "a");
  EXPECT_FALSE(fs_->crashed());
}

TEST_F(FaultInjectionFileSystemTest, FailAtCountsFromZeroAndIsOneShot) {
  fs_->FailAt(2, Fault::kError);
  EXPECT_TRUE(fs_->Write(Path("a"), "a"));
  EXPECT_TRUE(fs_->Write(Path("b"), "b"));
  auto failed = fs_->Write(Path("c"), "c");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, ErrorCode::kIOError);
  EXPECT_THAT(failed.error().message, HasSubstr("op #2"));
  EXPECT_TRUE(fs_->Write(Path("d"), "d"));
  EXPECT_EQ(Contents("c"), "<absent>");
  EXPECT_EQ(Contents("d"), "d");
  EXPECT_EQ(fs_->num_mutations(), 4);
  EXPECT_EQ(fs_->ops().size(), 4u);
  EXPECT_EQ(fs_->ops()[2], "write " + Path("c"));
}

TEST_F(FaultInjectionFileSystemTest, FailNextMatchingPicksThePathOnce) {
  fs_->FailNextMatching("_delta_log/", Fault::kError);
  ASSERT_TRUE(fs_->CreateDirs(Path("_delta_log")));  // no trailing slash: no match
  EXPECT_TRUE(fs_->Write(Path("part-0.parquet"), "p"));
  auto failed = fs_->PutIfAbsent(Path("_delta_log/1.json"), "c1");
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().message, HasSubstr(Path("_delta_log/1.json")));
  EXPECT_EQ(Contents("_delta_log/1.json"), "<absent>");
  EXPECT_FALSE(fs_->crashed());
  // One-shot: the retry goes through.
  EXPECT_TRUE(fs_->PutIfAbsent(Path("_delta_log/1.json"), "c1"));
  EXPECT_EQ(Contents("_delta_log/1.json"), "c1");
}

TEST_F(FaultInjectionFileSystemTest, ReadsPassThroughAfterCrash) {
  ASSERT_TRUE(fs_->Write(Path("f"), kData));
  fs_->FailAt(1, Fault::kCrashBeforeWrite);
  EXPECT_FALSE(fs_->Delete(Path("f")));
  ASSERT_TRUE(fs_->crashed());
  auto read = fs_->ReadFile(Path("f"));
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, kData);
  auto range = fs_->ReadRange(Path("f"), 2, 3);
  ASSERT_TRUE(range);
  EXPECT_EQ(*range, "234");
  auto info = fs_->Stat(Path("f"));
  ASSERT_TRUE(info);
  EXPECT_EQ(info->size, 16);
}

TEST_F(FaultInjectionFileSystemTest, ResetKeepsCountersAndLog) {
  fs_->FailAt(0, Fault::kCrashBeforeWrite);
  fs_->FailNextMatching("never-touched", Fault::kError);
  EXPECT_FALSE(fs_->Write(Path("a"), "a"));
  EXPECT_FALSE(fs_->Write(Path("b"), "b"));
  fs_->Reset();
  EXPECT_FALSE(fs_->crashed());
  EXPECT_EQ(fs_->num_mutations(), 2);
  EXPECT_TRUE(fs_->Write(Path("never-touched"), "n"));  // disarmed by Reset
  EXPECT_EQ(fs_->ops().size(), 3u);
}

TEST(FaultInjectionFileSystemReadsTest, CountedReadsCanFail) {
  struct Fixture : FaultFsTestBase {
    void Run() {
      MakeDir(/*count_reads=*/true);
      ASSERT_TRUE(local_->Write(Path("f"), "x"));
      fs_->FailAt(1, Fault::kError);
      EXPECT_TRUE(fs_->Exists(Path("f")));
      auto failed = fs_->ReadFile(Path("f"));
      ASSERT_FALSE(failed);
      EXPECT_EQ(failed.error().code, ErrorCode::kIOError);
      EXPECT_THAT(failed.error().message, HasSubstr("injected fault"));
      EXPECT_TRUE(fs_->ReadFile(Path("f")));
      EXPECT_EQ(fs_->num_mutations(), 0);
      EXPECT_THAT(fs_->ops(), ElementsAre("exists " + Path("f"), "read_file " + Path("f"),
                                          "read_file " + Path("f")));
      // A crash fault on a read enters the crash state.
      fs_->FailNextMatching("f", Fault::kCrashBeforeWrite);
      EXPECT_FALSE(fs_->Stat(Path("f")));
      EXPECT_TRUE(fs_->crashed());
      EXPECT_FALSE(fs_->Write(Path("g"), "g"));
      RemoveDir();
    }
  } fixture;
  fixture.Run();
}

TEST_F(FaultInjectionFileSystemTest, ConcurrentOpsAreAllCounted) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kPerThread; ++i) {
        (void)fs_->PutIfAbsent(Path(fmt::format("f{}_{}", t, i)), "x");
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(fs_->num_mutations(), kThreads * kPerThread);
  EXPECT_EQ(fs_->ops().size(), static_cast<size_t>(kThreads * kPerThread));
}

// Every fault kind on every mutating op, checked against the local FS underneath.
enum class Op { kPutIfAbsent, kWrite, kDelete, kCreateDirs };

class FaultMatrixTest : public FaultFsTestBase,
                        public ::testing::TestWithParam<std::tuple<Op, Fault>> {
 protected:
  void SetUp() override { MakeDir(); }
  void TearDown() override { RemoveDir(); }
};

TEST_P(FaultMatrixTest, LeavesExpectedStateAndCrashState) {
  auto [op, fault] = GetParam();
  ASSERT_TRUE(local_->Write(Path("old"), "previous"));
  ASSERT_TRUE(local_->Write(Path("victim"), kData));
  fs_->FailAt(0, fault);

  std::string target;
  Status st;
  switch (op) {
    case Op::kPutIfAbsent:
      target = Path("new");
      st = fs_->PutIfAbsent(target, kData);
      break;
    case Op::kWrite:
      target = Path("old");
      st = fs_->Write(target, kData);
      break;
    case Op::kDelete:
      target = Path("victim");
      st = fs_->Delete(target);
      break;
    case Op::kCreateDirs:
      target = Path("a/b/c");
      st = fs_->CreateDirs(target);
      break;
  }
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kIOError);
  EXPECT_THAT(st.error().message, HasSubstr("injected fault"));
  EXPECT_THAT(st.error().message, HasSubstr(target));

  const bool applied = fault == Fault::kCrashAfterWrite;
  const bool torn = fault == Fault::kTornWrite && op == Op::kWrite;
  switch (op) {
    case Op::kPutIfAbsent:  // atomic: all or nothing, never torn
      EXPECT_EQ(Contents("new"), applied ? std::string(kData) : "<absent>");
      break;
    case Op::kWrite:
      EXPECT_EQ(Contents("old"), applied ? std::string(kData)
                                 : torn  ? std::string(kData.substr(0, 8))
                                         : "previous");
      break;
    case Op::kDelete:
      EXPECT_EQ(Contents("victim"), applied ? "<absent>" : std::string(kData));
      break;
    case Op::kCreateDirs:
      EXPECT_EQ(stdfs::is_directory(target), applied);
      break;
  }
  // No temp files are left behind by the inner FS either way.
  for (const auto& entry : stdfs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().rfind(".", 0), std::string::npos)
        << entry.path();
  }

  const bool crashes = fault != Fault::kError;
  EXPECT_EQ(fs_->crashed(), crashes);
  auto later = fs_->PutIfAbsent(Path("later"), "l");
  EXPECT_EQ(static_cast<bool>(later), !crashes);
  EXPECT_EQ(Contents("later"), crashes ? "<absent>" : "l");
  if (crashes) {
    EXPECT_THAT(later.error().message, HasSubstr(Path("later")));
    EXPECT_FALSE(fs_->CreateDirs(Path("z")));
    EXPECT_FALSE(stdfs::exists(Path("z")));
    fs_->Reset();
    EXPECT_FALSE(fs_->crashed());
    EXPECT_TRUE(fs_->PutIfAbsent(Path("later"), "l"));
    EXPECT_EQ(Contents("later"), "l");
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllOpsAllFaults, FaultMatrixTest,
    ::testing::Combine(::testing::Values(Op::kPutIfAbsent, Op::kWrite, Op::kDelete,
                                         Op::kCreateDirs),
                       ::testing::Values(Fault::kError, Fault::kCrashBeforeWrite,
                                         Fault::kCrashAfterWrite, Fault::kTornWrite)));

}  // namespace
}  // namespace deltaguard

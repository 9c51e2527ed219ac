#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "deltaguard/io/fs/file_system.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

namespace stdfs = std::filesystem;

class LocalFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/deltaguard_fs_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    fs_ = MakeLocalFileSystem();
  }
  void TearDown() override {
    std::error_code ec;
    stdfs::remove_all(dir_, ec);
  }

  std::string Path(std::string_view name) const { return JoinPath(dir_, name); }

  void WriteRaw(std::string_view name, std::string_view data) const {
    std::ofstream out(Path(name), std::ios::binary);
    out << data;
  }

  // Every entry in the directory, hidden ones included (temp files start with '.').
  std::vector<std::string> AllEntries() const {
    std::vector<std::string> out;
    for (const auto& e : stdfs::directory_iterator(dir_)) {
      out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string dir_;
  FileSystemRef fs_;
};

std::vector<std::string> Names(const std::vector<FileInfo>& infos) {
  std::vector<std::string> out;
  for (const FileInfo& f : infos) out.push_back(stdfs::path(f.path).filename().string());
  return out;
}

TEST_F(LocalFileSystemTest, ListIsSortedFilesOnlyAndHonoursStartAt) {
  for (const char* name : {"00000000000000000010.json", "00000000000000000002.json",
                           "00000000000000000001.checkpoint.parquet", "_last_checkpoint",
                           "00000000000000000000.json"}) {
    WriteRaw(name, "x");
  }
  stdfs::create_directory(Path("00000000000000000005.dir"));  // not a file: skipped
  auto all = fs_->List(dir_);
  ASSERT_TRUE(all) << all.error().ToString();
  EXPECT_THAT(Names(*all), ElementsAre("00000000000000000000.json",
                                       "00000000000000000001.checkpoint.parquet",
                                       "00000000000000000002.json",
                                       "00000000000000000010.json", "_last_checkpoint"));
  EXPECT_EQ((*all)[0].path, Path("00000000000000000000.json"));
  EXPECT_EQ((*all)[0].size, 1);
  EXPECT_GT((*all)[0].modification_time, 0);

  // start_at is inclusive and compares whole names in byte order.
  auto from2 = fs_->List(dir_, "00000000000000000002.json");
  ASSERT_TRUE(from2);
  EXPECT_THAT(Names(*from2),
              ElementsAre("00000000000000000002.json", "00000000000000000010.json",
                          "_last_checkpoint"));
  auto from_prefix = fs_->List(dir_, "00000000000000000001");
  ASSERT_TRUE(from_prefix);
  EXPECT_EQ(Names(*from_prefix).front(), "00000000000000000001.checkpoint.parquet");
  auto none = fs_->List(dir_, "zzz");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST_F(LocalFileSystemTest, MissingThingsAreNotFound) {
  auto list = fs_->List(Path("no_such_dir"));
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(list.error().message, HasSubstr("no_such_dir"));

  auto read = fs_->ReadFile(Path("missing.json"));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(read.error().message, HasSubstr("missing.json"));

  EXPECT_EQ(fs_->ReadRange(Path("missing"), 0, 1).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(fs_->Stat(Path("missing")).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(fs_->Delete(Path("missing")).error().code, ErrorCode::kNotFound);
  auto exists = fs_->Exists(Path("missing"));
  ASSERT_TRUE(exists);
  EXPECT_FALSE(*exists);
  // A path below a regular file (ENOTDIR) is also "not found".
  WriteRaw("file", "x");
  EXPECT_EQ(fs_->ReadFile(Path("file/child")).error().code, ErrorCode::kNotFound);
}

TEST_F(LocalFileSystemTest, ReadFileAndStat) {
  std::string data("binary\0data\n", 12);
  WriteRaw("f.bin", data);
  auto read = fs_->ReadFile(Path("f.bin"));
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, data);
  auto st = fs_->Stat(Path("f.bin"));
  ASSERT_TRUE(st);
  EXPECT_EQ(st->size, 12);
  EXPECT_EQ(st->path, Path("f.bin"));
  WriteRaw("empty", "");
  EXPECT_EQ(*fs_->ReadFile(Path("empty")), "");
  auto dir = fs_->ReadFile(dir_);
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().code, ErrorCode::kIOError);
}

TEST_F(LocalFileSystemTest, MapFileMapsTheWholeFile) {
  std::string data("mapped\0bytes", 12);
  WriteRaw("m", data);
  auto mapped = fs_->MapFile(Path("m"));
  ASSERT_TRUE(mapped) << mapped.error().ToString();
  ASSERT_EQ((*mapped)->size(), 12);
  EXPECT_EQ(std::string((*mapped)->data(), 12), data);
  WriteRaw("empty", "");
  auto empty = fs_->MapFile(Path("empty"));
  ASSERT_TRUE(empty) << empty.error().ToString();
  EXPECT_EQ((*empty)->size(), 0);
  EXPECT_EQ(fs_->MapFile(Path("nope")).error().code, ErrorCode::kNotFound);
  // Wrappers do not map (their reads must stay visible to fault injection).
  FaultInjectionFileSystem faulty(fs_);
  EXPECT_EQ(faulty.MapFile(Path("m")).error().code, ErrorCode::kUnsupportedFeature);
}

TEST_F(LocalFileSystemTest, ReadRangeReadsExactlyOrReportsTruncation) {
  WriteRaw("r", "0123456789");
  EXPECT_EQ(*fs_->ReadRange(Path("r"), 2, 3), "234");
  EXPECT_EQ(*fs_->ReadRange(Path("r"), 0, 10), "0123456789");
  EXPECT_EQ(*fs_->ReadRange(Path("r"), 10, 0), "");
  auto truncated = fs_->ReadRange(Path("r"), 8, 5);
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(truncated.error().message, HasSubstr("wanted 5 bytes at offset 8, got 2"));
  EXPECT_EQ(fs_->ReadRange(Path("r"), 20, 1).error().code, ErrorCode::kCorruptData);
  EXPECT_EQ(fs_->ReadRange(Path("r"), -1, 1).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(fs_->ReadRange(Path("r"), 0, -1).error().code, ErrorCode::kInvalidArgument);
}

TEST_F(LocalFileSystemTest, PutIfAbsentCreatesOnceAndNeverReplaces) {
  std::string commit = Path("00000000000000000001.json");
  ASSERT_TRUE(fs_->PutIfAbsent(commit, "first"));
  EXPECT_EQ(*fs_->ReadFile(commit), "first");
  Status again = fs_->PutIfAbsent(commit, "second, longer content");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kAlreadyExists);
  EXPECT_THAT(again.error().message, HasSubstr("00000000000000000001.json"));
  EXPECT_EQ(*fs_->ReadFile(commit), "first");  // the old content is kept
  EXPECT_THAT(AllEntries(), ElementsAre("00000000000000000001.json"));  // no temp files
}

TEST_F(LocalFileSystemTest, PutIfAbsentRaceHasExactlyOneWinner) {
  constexpr int kThreads = 8;
  std::string target = Path("00000000000000000007.json");
  std::atomic<int> winners{0};
  std::atomic<int> already_exists{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Status s = fs_->PutIfAbsent(target, std::string(1000, static_cast<char>('a' + i)));
      if (s) {
        ++winners;
      } else if (s.error().code == ErrorCode::kAlreadyExists) {
        ++already_exists;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(already_exists.load(), kThreads - 1);
  std::string content = *fs_->ReadFile(target);
  ASSERT_EQ(content.size(), 1000u);
  EXPECT_EQ(content, std::string(1000, content[0]));  // one writer's full content
  EXPECT_THAT(AllEntries(), ElementsAre("00000000000000000007.json"));
}

TEST_F(LocalFileSystemTest, WriteCreatesAndReplacesWithoutTempFiles) {
  std::string path = Path("_last_checkpoint");
  ASSERT_TRUE(fs_->Write(path, "v1"));
  EXPECT_EQ(*fs_->ReadFile(path), "v1");
  ASSERT_TRUE(fs_->Write(path, "version two"));
  EXPECT_EQ(*fs_->ReadFile(path), "version two");
  ASSERT_TRUE(fs_->Write(path, ""));
  EXPECT_EQ(*fs_->ReadFile(path), "");
  EXPECT_THAT(AllEntries(), ElementsAre("_last_checkpoint"));
}

TEST_F(LocalFileSystemTest, ReadersNeverSeeAPartialWrite) {
  // Rename-into-place means a concurrent reader sees the old or the new file whole.
  std::string path = Path("data");
  const std::string a(1 << 16, 'a');
  const std::string b(1 << 17, 'b');
  ASSERT_TRUE(fs_->Write(path, a));
  std::atomic<bool> done{false};
  std::atomic<int> torn{0};
  std::thread reader([&] {
    while (!done.load()) {
      auto r = fs_->ReadFile(path);
      if (!r || (*r != a && *r != b)) ++torn;
    }
  });
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(fs_->Write(path, i % 2 ? a : b));
  done = true;
  reader.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_THAT(AllEntries(), ElementsAre("data"));
}

TEST_F(LocalFileSystemTest, WriteIntoMissingDirectoryFailsCleanly) {
  Status s = fs_->Write(Path("no/such/dir/file"), "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::kNotFound);
  Status p = fs_->PutIfAbsent(Path("no/such/dir/file"), "x");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(AllEntries().empty());
}

TEST_F(LocalFileSystemTest, DeleteExistsAndCreateDirs) {
  ASSERT_TRUE(fs_->CreateDirs(Path("a/b/c")));
  ASSERT_TRUE(fs_->CreateDirs(Path("a/b/c")));  // idempotent
  EXPECT_TRUE(stdfs::is_directory(Path("a/b/c")));
  std::string f = Path("a/b/c/f");
  ASSERT_TRUE(fs_->Write(f, "x"));
  EXPECT_TRUE(*fs_->Exists(f));
  EXPECT_TRUE(*fs_->Exists(Path("a/b")));
  ASSERT_TRUE(fs_->Delete(f));
  EXPECT_FALSE(*fs_->Exists(f));
  WriteRaw("blocker", "x");
  Status blocked = fs_->CreateDirs(Path("blocker/sub"));
  EXPECT_FALSE(blocked);
}

TEST(JoinPathTest, JoinsWithExactlyOneSlash) {
  EXPECT_EQ(JoinPath("/t", "_delta_log"), "/t/_delta_log");
  EXPECT_EQ(JoinPath("/t/", "_delta_log"), "/t/_delta_log");
  EXPECT_EQ(JoinPath("/t//", "/_delta_log"), "/t/_delta_log");
  EXPECT_EQ(JoinPath("/", "x"), "/x");
  EXPECT_EQ(JoinPath("", "x"), "x");
  EXPECT_EQ(JoinPath("rel", "a/b"), "rel/a/b");
}

}  // namespace
}  // namespace deltaguard

namespace deltaguard {
namespace {

TEST_F(LocalFileSystemTest, OpenForWriteStreamsAndPublishesOnlyOnClose) {
  std::string path = Path("part-0.parquet");
  auto out = fs_->OpenForWrite(path);
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_TRUE((*out)->Append("abc"));
  ASSERT_TRUE((*out)->Append(std::string(1 << 20, 'x')));
  EXPECT_FALSE(*fs_->Exists(path));  // nothing visible before Close
  ASSERT_TRUE((*out)->Close());
  EXPECT_EQ(fs_->ReadFile(path)->size(), 3u + (1u << 20));
  EXPECT_FALSE((*out)->Close());  // at most once
  EXPECT_THAT(AllEntries(), ElementsAre("part-0.parquet"));
}

TEST_F(LocalFileSystemTest, LargeStreamedFilesArriveWholeThroughEarlyWriteback) {
  // 20 MiB plus a tail, in uneven pieces: the writeback started every 8 MiB must not
  // change or lose a byte, and the file still appears only on Close.
  std::string expected;
  std::string path = Path("big.parquet");
  auto out = fs_->OpenForWrite(path);
  ASSERT_TRUE(out) << out.error().ToString();
  for (int i = 0; expected.size() < (20u << 20); ++i) {
    std::string piece(static_cast<size_t>(700000 + i * 1237),
                      static_cast<char>('a' + i % 26));
    expected += piece;
    ASSERT_TRUE((*out)->Append(piece));
  }
  ASSERT_TRUE((*out)->Append("tail"));
  expected += "tail";
  EXPECT_FALSE(*fs_->Exists(path));
  ASSERT_TRUE((*out)->Close());
  auto read = fs_->ReadFile(path);
  ASSERT_TRUE(read) << read.error().ToString();
  EXPECT_TRUE(*read == expected);
}

TEST_F(LocalFileSystemTest, AbandonedOutputLeavesNoFile) {
  {
    auto out = fs_->OpenForWrite(Path("half.parquet"));
    ASSERT_TRUE(out);
    ASSERT_TRUE((*out)->Append("partial"));
  }
  EXPECT_TRUE(AllEntries().empty());
}

TEST(FileSystemDefaultTest, OpenForWriteGoesThroughWriteSoFaultsApply) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/deltaguard_fsdef_XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  auto faulty = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem());
  faulty->FailNextMatching("data.bin", Fault::kError);
  auto out = faulty->OpenForWrite(JoinPath(dir, "data.bin"));
  ASSERT_TRUE(out);
  ASSERT_TRUE((*out)->Append("payload"));
  auto closed = (*out)->Close();
  EXPECT_FALSE(closed);
  EXPECT_FALSE(*faulty->Exists(JoinPath(dir, "data.bin")));
  auto again = faulty->OpenForWrite(JoinPath(dir, "data.bin"));
  ASSERT_TRUE((*again)->Append("payload"));
  ASSERT_TRUE((*again)->Close());
  EXPECT_EQ(*faulty->ReadFile(JoinPath(dir, "data.bin")), "payload");
  std::error_code ec;
  stdfs::remove_all(dir, ec);
}

}  // namespace
}  // namespace deltaguard

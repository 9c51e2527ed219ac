// FilePrefetcher (file_prefetch_internal.h): the same batches as scanning each file in
// turn, with an end marker per file, for every depth (0 reads inline); a bad file's
// error is returned in its place and sticks; giving up early does not hang.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "deltaguard/dml/dml_internal.h"
#include "deltaguard/dml/file_prefetch_internal.h"
#include "deltaguard/table/table.h"
#include "testing/table_fixture.h"

namespace deltaguard::dml_internal {
namespace {

// Each batch as "file:first id..last id" plus "end" markers, as the prefetcher yields.
std::vector<std::string> Drain(FilePrefetcher& p, size_t files) {
  std::vector<std::string> out;
  for (size_t f = 0; f < files; ++f) {
    while (true) {
      auto batch = p.Next();
      EXPECT_TRUE(batch) << batch.error().ToString();
      if (!batch) return out;
      if (!*batch) {
        out.push_back("end");
        break;
      }
      const auto& ids = static_cast<const arrow::Int64Array&>(*(*batch)->column(0));
      out.push_back(std::to_string(f) + ":" + std::to_string(ids.Value(0)) + ".." +
                    std::to_string(ids.Value(ids.length() - 1)));
    }
  }
  return out;
}

class FilePrefetcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.Join("t");
    MakeTable(path_, "id BIGINT, s STRING",
              {R"([{"id":1,"s":"a"},{"id":2,"s":"b"}])", R"([{"id":3,"s":"c"}])",
               R"([{"id":4,"s":"d"},{"id":5,"s":null},{"id":6,"s":"f"}])"});
    auto snapshot = OpenSnapshot(MakeLocalFileSystem(), path_);
    ASSERT_TRUE(snapshot) << snapshot.error().ToString();
    snapshot_ = *snapshot;
    for (const auto& f : snapshot_->files()) files_.push_back(&f);
    ASSERT_EQ(files_.size(), 3u);
  }

  // The files' batches scanned one file after the other, without a prefetcher.
  std::vector<std::string> Expected() {
    std::vector<std::string> out;
    for (size_t f = 0; f < files_.size(); ++f) {
      auto scan = ScanFile(snapshot_, *files_[f]);
      EXPECT_TRUE(scan);
      while (true) {
        auto batch = (*scan)->Next();
        EXPECT_TRUE(batch);
        if (!*batch) break;
        const auto& ids = static_cast<const arrow::Int64Array&>(*(*batch)->column(0));
        out.push_back(std::to_string(f) + ":" + std::to_string(ids.Value(0)) + ".." +
                      std::to_string(ids.Value(ids.length() - 1)));
      }
      out.push_back("end");
    }
    return out;
  }

  TempDir dir_;
  std::string path_;
  SnapshotRef snapshot_;
  std::vector<const AddFile*> files_;
};

TEST_F(FilePrefetcherTest, YieldsEachFilesBatchesThenAnEndMarkerInFileOrder) {
  const auto expected = Expected();
  ASSERT_EQ(expected.size(), 6u);
  for (size_t depth : {0u, 1u, 2u, 8u}) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    FilePrefetcher p(snapshot_, files_, depth);
    EXPECT_EQ(Drain(p, files_.size()), expected);
    auto past = p.Next();  // past the last file: nullptr, not an error
    ASSERT_TRUE(past);
    EXPECT_EQ(*past, nullptr);
  }
}

TEST_F(FilePrefetcherTest, ABadFileIsReportedInItsPlaceAndTheErrorSticks) {
  // Truncate the second file: the first file's batches still come first.
  auto decoded = PercentDecode(files_[1]->path);
  ASSERT_TRUE(decoded);
  const std::string bad = path_ + "/" + *decoded;
  std::filesystem::resize_file(bad, 10);
  for (size_t depth : {0u, 2u}) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    FilePrefetcher p(snapshot_, files_, depth);
    auto first = p.Next();
    ASSERT_TRUE(first);
    ASSERT_NE(*first, nullptr);
    auto end = p.Next();
    ASSERT_TRUE(end);
    EXPECT_EQ(*end, nullptr);
    auto broken = p.Next();
    ASSERT_FALSE(broken);
    EXPECT_NE(broken.error().ToString().find(*decoded), std::string::npos)
        << broken.error().ToString();
    auto again = p.Next();
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().ToString(), broken.error().ToString());
  }
}

TEST_F(FilePrefetcherTest, DestroyingItBeforeTheEndStopsTheReader) {
  for (int i = 0; i < 20; ++i) {
    FilePrefetcher p(snapshot_, files_, 1);
    if (i % 2 == 0) {
      auto first = p.Next();
      ASSERT_TRUE(first);
      ASSERT_NE(*first, nullptr);
    }
  }  // each destructor joins its reader (a hang here fails the test by timeout)
}

}  // namespace
}  // namespace deltaguard::dml_internal

// Reading a micro-batch on several threads (ingest/parallel_reader.h): the same rows
// and counts as one thread, in the same order every run, every new column of every
// worker named, and errors that stop the batch.

#include "deltaguard/ingest/parallel_reader.h"

#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/result_format.h"
#include "deltaguard/schema/ddl.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

class ParallelReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto o = ParseIngestOptions({{"cloudFiles.schemaEvolutionMode", "rescue"}});
    ASSERT_TRUE(o) << o.error().message;
    spec_.options = *o;
    spec_.data_schema = *ParseDdlSchema("id BIGINT, name STRING");
    spec_.batch_rows = 3;  // many batches per file
    spec_.parallel_min_bytes = 0;
    for (int f = 0; f < 7; ++f) {
      std::string text;
      for (int r = 0; r < 5 + f; ++r) {
        const int id = f * 100 + r;
        if (r == 2) {
          text += "not json\n";
        } else if (r == 3) {
          text += "{\"id\": " + std::to_string(id) + ", \"extra\": true}\n";
        } else {
          text += "{\"id\": " + std::to_string(id) + ", \"name\": \"n" +
                  std::to_string(id) + "\"}\n";
        }
      }
      const std::string path = dir_.Join("in/f" + std::to_string(f) + ".json");
      testing::WriteTextFile(path, text);
      files_.push_back(IngestFile{path, static_cast<int64_t>(text.size()), 0, {}});
    }
  }

  // Every row as text, in the order read, and the counts.
  Result<std::vector<std::string>> Read(int parallelism, ReadStats* counts) {
    spec_.parallelism = parallelism;
    auto stats = std::make_shared<ReadStats>();
    DELTA_ASSIGN_OR_RETURN(auto reader,
                           OpenIngestReader(MakeLocalFileSystem(), files_, spec_, stats));
    std::vector<std::string> rows;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      auto st = reader->ReadNext(&batch);
      if (!st.ok()) {
        *counts = *stats;
        return internal::FromArrowStatus(st, ErrorCode::kInternal, "read");
      }
      if (!batch) break;
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        std::string row;
        for (int c = 0; c < batch->num_columns(); ++c) {
          AppendTextValue(*batch->column(c), r, false, &row);
          row += '|';
        }
        rows.push_back(row);
      }
    }
    *counts = *stats;
    return rows;
  }

  testing::TempDir dir_;
  ReadSpec spec_;
  std::vector<IngestFile> files_;
};

TEST_F(ParallelReaderTest, SameRowsAndCountsAsOneThreadInAStableOrder) {
  ReadStats one, two, again;
  auto sequential = Read(1, &one);
  auto parallel = Read(2, &two);
  auto repeated = Read(2, &again);
  ASSERT_TRUE(sequential && parallel && repeated);
  EXPECT_EQ(parallel->size(), sequential->size());
  EXPECT_EQ(*parallel, *repeated);  // the same order every run
  auto a = *sequential, b = *parallel;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  for (const ReadStats* s : {&two, &again}) {
    EXPECT_EQ(s->files, one.files);
    EXPECT_EQ(s->rows, one.rows);
    EXPECT_EQ(s->bytes, one.bytes);
    EXPECT_EQ(s->rescued_rows, one.rescued_rows);
    EXPECT_EQ(s->malformed_rows, one.malformed_rows);
    ASSERT_EQ(s->unknown.size(), 1u);
    EXPECT_EQ(s->unknown[0].path[0], "extra");
  }
  EXPECT_EQ(one.files, 7);
  EXPECT_EQ(one.malformed_rows, 7);
}

TEST_F(ParallelReaderTest, NewColumnsOfEveryWorkerAreNamed) {
  auto o = ParseIngestOptions({});  // addNewColumns
  ASSERT_TRUE(o);
  spec_.options = *o;
  spec_.evolves = [](const UnknownField& u) { return !u.mismatch; };
  testing::WriteTextFile(files_[5].path, "{\"id\": 1, \"late\": 2}\n");
  files_[5].size = 21;
  ReadStats counts;
  auto r = Read(3, &counts);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kSchemaMismatch);
  std::vector<std::string> names;
  for (const auto& u : counts.unknown) names.push_back(u.path[0]);
  EXPECT_THAT(names, UnorderedElementsAre("extra", "late"));
}

TEST_F(ParallelReaderTest, FailFastStopsTheBatchNamingTheRecord) {
  auto o = ParseIngestOptions(
      {{"cloudFiles.schemaEvolutionMode", "rescue"}, {"mode", "FAILFAST"}});
  ASSERT_TRUE(o);
  spec_.options = *o;
  ReadStats counts;
  auto r = Read(2, &counts);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr(".json:3: malformed record"));
}

TEST(IngestWorkersTest, ThreadsOnlyWhenTheBatchIsWorthIt) {
  std::vector<IngestFile> one{{"a", 100 << 20, 0, {}}};
  std::vector<IngestFile> small{{"a", 10, 0, {}}, {"b", 10, 0, {}}};
  std::vector<IngestFile> big{{"a", 40 << 20, 0, {}}, {"b", 40 << 20, 0, {}}};
  EXPECT_EQ(IngestWorkers(one, 0, 16 << 20), 1);
  EXPECT_EQ(IngestWorkers(small, 0, 16 << 20), 1);
  EXPECT_EQ(IngestWorkers(small, 8, 16 << 20), 2);  // never more than the files
  EXPECT_GE(IngestWorkers(big, 0, 16 << 20), 1);
  EXPECT_LE(IngestWorkers(big, 0, 16 << 20), 2);
}

}  // namespace
}  // namespace deltaguard

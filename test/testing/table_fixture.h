/// \file test/testing/table_fixture.h
/// Small Delta tables for the tests of the layers that write them (write, table, dml;
/// header-only; tests only): a source over batches or JSON rows, a table created and
/// appended to through the public API, every live row read back, the commit files and
/// the data files on disk.
#pragma once

#include <arrow/record_batch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/test_util.h"

namespace deltaguard::testing {

/// A source named `name` over `batches` (one schema; read once).
inline BatchSource BatchesSource(
    std::string name, std::vector<std::shared_ptr<arrow::RecordBatch>> batches) {
  auto schema = batches.front()->schema();
  auto reader = arrow::RecordBatchReader::Make(std::move(batches), schema);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  return SourceFromReader(std::move(name), *reader);
}

/// A source over one batch of `json` rows in the schema of `ddl`.
inline BatchSource JsonSource(const std::string& ddl, const std::string& json,
                              std::string name = "src") {
  return BatchesSource(std::move(name), {Rows(Ddl(ddl), json)});
}

/// Create a table with the `ddl` columns; a failure fails the test.
inline void CreateDdlTable(const std::string& path, const std::string& ddl,
                           StringMap properties = {},
                           std::vector<std::string> partition_by = {}) {
  CreateTableOptions create;
  create.schema = Ddl(ddl);
  create.partition_columns = std::move(partition_by);
  create.properties = std::move(properties);
  auto created = CreateTable(MakeLocalFileSystem(), path, create);
  ASSERT_TRUE(created) << created.error().ToString();
}

/// Append `json` rows in the logical types of `ddl` as one commit.
inline void AppendJson(const std::string& path, const std::string& ddl,
                       const std::string& json, std::string name = "src") {
  std::vector<BatchSource> sources;
  sources.push_back(JsonSource(ddl, json, std::move(name)));
  auto written = WriteTable(MakeLocalFileSystem(), path, std::move(sources), {});
  ASSERT_TRUE(written) << written.error().ToString();
}

/// Create a table (`ddl` columns) and append each JSON batch as its own commit/file.
inline void MakeTable(const std::string& path, const std::string& ddl,
                      const std::vector<std::string>& batches,
                      std::vector<std::string> partition_by = {},
                      StringMap properties = {}) {
  CreateDdlTable(path, ddl, std::move(properties), std::move(partition_by));
  for (const auto& json : batches) AppendJson(path, ddl, json);
}

/// The latest snapshot; a table that does not open fails the test (null).
inline SnapshotRef OpenTable(const std::string& path) {
  auto snapshot = OpenSnapshot(path);
  EXPECT_TRUE(snapshot) << snapshot.error().ToString();
  return snapshot ? *snapshot : nullptr;
}

/// Every live row of the table, batch by batch, and the scan's output schema.
struct ScannedTable {
  std::shared_ptr<arrow::Schema> schema;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
};

inline ScannedTable ScanTable(const std::string& path, const ScanOptions& options = {}) {
  ScannedTable out;
  SnapshotRef snapshot = OpenTable(path);
  if (!snapshot) return out;
  auto scan = TableScan::Make(snapshot, options);
  EXPECT_TRUE(scan) << scan.error().ToString();
  if (!scan) return out;
  out.schema = (*scan)->output_schema();
  while (true) {
    auto batch = (*scan)->Next();
    EXPECT_TRUE(batch) << batch.error().ToString();
    if (!batch || !*batch) break;
    out.batches.push_back(std::move(*batch));
  }
  return out;
}

/// Every live row as "v1|v2|...", sorted; with the column names as the first entry.
inline std::vector<std::string> Dump(const std::string& path) {
  ScannedTable table = ScanTable(path);
  if (!table.schema) return {};
  std::vector<std::string> rows;
  for (const auto& batch : table.batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string row;
      for (int c = 0; c < batch->num_columns(); ++c) {
        auto scalar = batch->column(c)->GetScalar(r);
        row += (c ? "|" : "") + (scalar.ok() ? (*scalar)->ToString() : "?");
      }
      rows.push_back(row);
    }
  }
  std::sort(rows.begin(), rows.end());
  std::string header;
  for (const auto& f : table.schema->fields())
    header += (header.empty() ? "" : ",") + f->name();
  rows.insert(rows.begin(), header);
  return rows;
}

inline int64_t Version(const std::string& path) {
  auto snapshot = OpenSnapshot(path);
  return snapshot ? (*snapshot)->version() : -2;
}

/// The text of the commit file of `version` (every action line).
inline std::string CommitFile(const std::string& path, int64_t version) {
  char name[32];
  std::snprintf(name, sizeof(name), "%020lld.json", static_cast<long long>(version));
  return ReadTextFile(path + "/_delta_log/" + name);
}

/// The commitInfo line of `version` (raw JSON).
inline std::string CommitInfo(const std::string& path, int64_t version) {
  std::string text = CommitFile(path, version);
  return text.substr(0, text.find('\n'));
}

/// The table's .parquet data files under `root` (recursively), sorted. Directories
/// whose name starts with `_` are not table data (`_delta_log`, the profile table in
/// `_deltaguard`) and are skipped, as Delta's VACUUM skips them.
inline std::vector<std::string> ParquetFiles(const std::string& root) {
  std::vector<std::string> out;
  if (!std::filesystem::exists(root)) return out;
  for (auto it = std::filesystem::recursive_directory_iterator(root);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename().string().rfind('_', 0) == 0) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().extension() == ".parquet") out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace deltaguard::testing

// Named in tests without a using block (testing/matchers.h).
namespace deltaguard {
using testing::Dump;
using testing::JsonSource;
using testing::MakeTable;
}  // namespace deltaguard

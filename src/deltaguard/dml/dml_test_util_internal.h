/// \file deltaguard/dml/dml_test_util_internal.h
/// Test helpers for the dml tests (header-only; tests only): small tables, sources,
/// table contents as sorted row strings, the last commitInfo, and a file system that
/// runs a callback before the next commit (to stage races).
#pragma once

#include <arrow/record_batch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/test_util.h"

namespace deltaguard::testing {

/// A source over one batch of `json` rows in the schema of `ddl`.
inline BatchSource JsonSource(const std::string& ddl, const std::string& json) {
  auto batch = Rows(Ddl(ddl), json);
  auto reader = arrow::RecordBatchReader::Make({batch}, batch->schema());
  EXPECT_TRUE(reader.ok());
  return SourceFromReader("src", *reader);
}

/// Create a table (`ddl` columns) and append each JSON batch as its own commit/file.
inline void MakeTable(const std::string& path, const std::string& ddl,
                      const std::vector<std::string>& batches,
                      std::vector<std::string> partition_by = {},
                      StringMap properties = {}) {
  CreateTableOptions create;
  create.schema = Ddl(ddl);
  create.partition_columns = std::move(partition_by);
  create.properties = std::move(properties);
  auto created = CreateTable(MakeLocalFileSystem(), path, create);
  ASSERT_TRUE(created) << created.error().ToString();
  for (const auto& json : batches) {
    std::vector<BatchSource> sources;
    sources.push_back(JsonSource(ddl, json));
    auto written = WriteTable(MakeLocalFileSystem(), path, std::move(sources), {});
    ASSERT_TRUE(written) << written.error().ToString();
  }
}

/// Every live row as "v1|v2|...", sorted; with the column names as the first entry.
inline std::vector<std::string> Dump(const std::string& path) {
  auto snapshot = OpenSnapshot(path);
  EXPECT_TRUE(snapshot) << snapshot.error().ToString();
  if (!snapshot) return {};
  auto scan = TableScan::Make(*snapshot, {});
  EXPECT_TRUE(scan) << scan.error().ToString();
  std::vector<std::string> rows;
  while (true) {
    auto batch = (*scan)->Next();
    EXPECT_TRUE(batch) << batch.error().ToString();
    if (!batch || !*batch) break;
    for (int64_t r = 0; r < (*batch)->num_rows(); ++r) {
      std::string row;
      for (int c = 0; c < (*batch)->num_columns(); ++c) {
        auto scalar = (*batch)->column(c)->GetScalar(r);
        row += (c ? "|" : "") + (scalar.ok() ? (*scalar)->ToString() : "?");
      }
      rows.push_back(row);
    }
  }
  std::sort(rows.begin(), rows.end());
  std::string header;
  for (const auto& f : (*scan)->output_schema()->fields())
    header += (header.empty() ? "" : ",") + f->name();
  rows.insert(rows.begin(), header);
  return rows;
}

inline int64_t Version(const std::string& path) {
  auto snapshot = OpenSnapshot(path);
  return snapshot ? (*snapshot)->version() : -2;
}

/// The commitInfo line of `version` (raw JSON).
inline std::string CommitInfo(const std::string& path, int64_t version) {
  char name[32];
  std::snprintf(name, sizeof(name), "%020lld.json", static_cast<long long>(version));
  std::string text = ReadTextFile(path + "/_delta_log/" + name);
  return text.substr(0, text.find('\n'));
}

/// The .parquet files under `root` (recursively), sorted.
inline std::vector<std::string> ParquetFiles(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.path().extension() == ".parquet") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace deltaguard::testing

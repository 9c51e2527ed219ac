/// \file test/testing/test_util.h
/// Test helpers shared by the gtest binaries of the Arrow layers (io/parquet, exec,
/// write, table, dml; test/ is on their include path; header-only; tests only):
/// temporary directories, writing Parquet files and small Delta tables.
#pragma once

#include <arrow/array.h>
#include <arrow/io/file.h>
#include <arrow/json/from_string.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/schema/ddl.h"
#include "testing/schema_util.h"
#include "testing/temp_dir.h"

namespace deltaguard::testing {

/// A batch in `schema`'s logical Arrow types from a JSON array of row objects.
inline std::shared_ptr<arrow::RecordBatch> Rows(const SchemaRef& schema,
                                                const std::string& json) {
  auto type = ToArrowType(*schema);
  EXPECT_TRUE(type) << type.error().ToString();
  auto array = arrow::json::ArrayFromJSONString(*type, json);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  auto batch = arrow::RecordBatch::FromStructArray(*array);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

inline void WriteTextFile(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
  ASSERT_TRUE(out.good()) << path;
}

inline std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

/// An Arrow array from JSON text; fails the test on bad JSON.
inline std::shared_ptr<arrow::Array> ArrayFromJson(
    const std::shared_ptr<arrow::DataType>& type, const std::string& json) {
  auto result = arrow::json::ArrayFromJSONString(type, json);
  EXPECT_TRUE(result.ok()) << result.status().ToString() << " for " << json;
  return result.ok() ? *result : nullptr;
}

/// Write `batch` as a Parquet file (creating parent directories). `int96` stores
/// timestamps as legacy INT96 as Spark does by default.
inline void WriteParquet(const std::string& path,
                         const std::shared_ptr<arrow::RecordBatch>& batch,
                         bool int96 = false, int64_t row_group_size = 64 * 1024) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  auto table = arrow::Table::FromRecordBatches({batch});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto out = arrow::io::FileOutputStream::Open(path);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  parquet::ArrowWriterProperties::Builder arrow_props;
  if (int96) arrow_props.enable_deprecated_int96_timestamps();
  auto st = parquet::arrow::WriteTable(
      **table, arrow::default_memory_pool(), *out, row_group_size,
      parquet::default_writer_properties(), arrow_props.build());
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE((*out)->Close().ok());
}

/// Write `_delta_log/<version>.json` under `root` with one action per line.
inline void WriteCommit(const std::string& root, int64_t version,
                        const std::vector<std::string>& actions) {
  char name[32];
  std::snprintf(name, sizeof(name), "%020lld.json", static_cast<long long>(version));
  std::string content;
  for (const auto& a : actions) content += a + "\n";
  WriteTextFile(root + "/_delta_log/" + name, content);
}

/// A metaData action line. `schema_json` is the schemaString (unescaped JSON).
inline std::string MetadataAction(const std::string& schema_json,
                                  const std::string& partition_columns_json = "[]",
                                  const std::string& configuration_json = "{}") {
  std::string escaped;
  for (char c : schema_json) {
    if (c == '"' || c == '\\') escaped.push_back('\\');
    escaped.push_back(c);
  }
  return R"({"metaData":{"id":"test-table","format":{"provider":"parquet","options":{}},)"
         R"("schemaString":")" +
         escaped + R"(","partitionColumns":)" + partition_columns_json +
         R"(,"configuration":)" + configuration_json + R"(,"createdTime":0}})";
}

inline std::string ProtocolAction(int reader, int writer,
                                  const std::string& features_json = "") {
  std::string out = R"({"protocol":{"minReaderVersion":)" + std::to_string(reader) +
                    R"(,"minWriterVersion":)" + std::to_string(writer);
  if (!features_json.empty()) {
    if (reader >= 3) out += R"(,"readerFeatures":)" + features_json;
    out += R"(,"writerFeatures":)" + features_json;
  }
  return out + "}}";
}

/// An add action line; `extra` is appended inside the add object (e.g. a
/// `"deletionVector":{...}` member).
inline std::string AddAction(const std::string& path,
                             const std::string& partition_values_json = "{}",
                             const std::string& extra = "") {
  std::string out = R"({"add":{"path":")" + path + R"(","partitionValues":)" +
                    partition_values_json +
                    R"(,"size":1,"modificationTime":1,"dataChange":true)";
  if (!extra.empty()) out += "," + extra;
  return out + "}}";
}

}  // namespace deltaguard::testing

// Named in tests without a using block (testing/matchers.h).
namespace deltaguard {
using testing::ArrayFromJson;
using testing::ReadTextFile;
using testing::Rows;
using testing::WriteParquet;
using testing::WriteTextFile;
}  // namespace deltaguard

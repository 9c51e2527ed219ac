/// \file deltaguard/sql/session_test_util_internal.h
/// Test helpers for the Session tests (tests only): a session over a temporary
/// warehouse with a fixed clock, and statement results as text rows.
#pragma once

#include <arrow/table.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "deltaguard/exec/result_format.h"
#include "deltaguard/sql/session.h"
#include "deltaguard/table/table.h"
#include "testing/temp_dir.h"

namespace deltaguard::testing {

/// A session whose warehouse is a fresh temporary directory.
class SessionFixture : public ::testing::Test {
 protected:
  SessionFixture() : session_(MakeOptions(dir_.Join("warehouse"))) {}

  static SessionOptions MakeOptions(std::string warehouse) {
    SessionOptions options;
    options.warehouse = std::move(warehouse);
    options.clock_micros = [] { return int64_t{1700000000} * 1000000; };
    return options;
  }

  /// Execute; a failure fails the test (and returns an empty result).
  StatementResult Run(const std::string& sql) {
    auto result = session_.ExecuteSql(sql);
    EXPECT_TRUE(result) << sql << "\n" << result.error().ToString();
    return result ? std::move(*result) : StatementResult{};
  }

  /// Execute and expect an error; returns it (code kInternal when it succeeded).
  Error Fail(const std::string& sql) {
    auto result = session_.ExecuteSql(sql);
    EXPECT_FALSE(result) << sql << " succeeded: " << (result ? result->message : "");
    if (result) {
      if (result->rows) (void)CollectRows(*result);
      return Error{ErrorCode::kInternal, "statement succeeded"};
    }
    return result.error();
  }

  /// The rows of a statement, each as its cells' text joined by '|' (NULL as "NULL").
  std::vector<std::string> Rows(const std::string& sql) {
    StatementResult result = Run(sql);
    return TextRows(result);
  }

  static std::vector<std::string> TextRows(StatementResult& result) {
    std::vector<std::string> out;
    auto table = CollectRows(result);
    EXPECT_TRUE(table) << table.error().ToString();
    if (!table || !*table) return out;
    auto combined = (*table)->CombineChunksToBatch();
    EXPECT_TRUE(combined.ok()) << combined.status().ToString();
    if (!combined.ok()) return out;
    const auto& batch = *combined;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string line;
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0) line += "|";
        AppendTextValue(*batch->column(c), r, /*csv=*/false, &line);
      }
      out.push_back(std::move(line));
    }
    return out;
  }

  /// The text of one column of a statement's result, per row.
  std::vector<std::string> Column(const std::string& sql, const std::string& name) {
    StatementResult result = Run(sql);
    std::vector<std::string> out;
    auto table = CollectRows(result);
    EXPECT_TRUE(table) << table.error().ToString();
    if (!table || !*table) return out;
    auto column = (*table)->GetColumnByName(name);
    EXPECT_NE(column, nullptr) << "no column " << name << " in " << sql;
    if (!column) return out;
    for (const auto& chunk : column->chunks()) {
      for (int64_t r = 0; r < chunk->length(); ++r) {
        std::string text;
        AppendTextValue(*chunk, r, /*csv=*/false, &text);
        out.push_back(std::move(text));
      }
    }
    return out;
  }

  /// Column names of a statement's result.
  std::vector<std::string> ColumnNames(const std::string& sql) {
    StatementResult result = Run(sql);
    std::vector<std::string> names;
    if (result.schema) names = result.schema->field_names();
    if (result.rows) (void)CollectRows(result);
    return names;
  }

  /// The latest version of the table at `path` (-1 when it cannot be opened).
  static int64_t Version(const std::string& path) {
    auto snapshot = OpenSnapshot(path);
    return snapshot ? (*snapshot)->version() : -1;
  }

  std::string Warehouse() const { return dir_.Join("warehouse"); }

  TempDir dir_;
  Session session_;
};

}  // namespace deltaguard::testing

/// \file deltaguard/sql/query_test_util_internal.h
/// Test fixture for the SELECT engine (query.h): a warehouse in a temp directory, tables
/// created and filled through table/write.h, and queries parsed with ParseStatement.
/// Tests only.
#pragma once

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/exec/result_format.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/sql/catalog.h"
#include "deltaguard/sql/parse/sql_parser.h"
#include "deltaguard/sql/query.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/string_util.h"
#include "testing/temp_dir.h"

namespace deltaguard::testing {

class QueryFixture : public ::testing::Test {
 protected:
  QueryFixture()
      : fs_(MakeLocalFileSystem()),
        catalog_(std::make_unique<Catalog>(fs_, dir_.Join("warehouse"))) {}

  QueryContext Context() const {
    QueryContext c;
    c.fs = fs_;
    c.catalog = catalog_.get();
    c.temp_views = &views_;
    c.now_micros = 1'700'000'000'000'000;  // 2023-11-14T22:13:20Z
    return c;
  }

  static SelectStmt ParseSelect(const std::string& sql) {
    auto statement = ParseStatement(sql);
    EXPECT_TRUE(statement) << sql << ": " << statement.error().ToString();
    if (!statement) return {};
    const auto* select = std::get_if<SelectStmt>(&statement->body);
    EXPECT_NE(select, nullptr) << sql;
    return select ? *select : SelectStmt{};
  }

  Result<QueryPlan> Plan(const std::string& sql, const PlanOptions& options = {}) {
    return PlanQuery(ParseSelect(sql), Context(), options);
  }

  Result<std::shared_ptr<arrow::Table>> Run(const std::string& sql,
                                            const PlanOptions& options = {}) {
    DELTA_ASSIGN_OR_RETURN(QueryPlan plan, Plan(sql, options));
    return CollectQuery(plan);
  }

  /// Each row as "v1|v2|..." (NULL for nulls).
  static std::vector<std::string> Rows(const arrow::Table& table) {
    std::vector<std::string> out;
    auto combined = table.CombineChunksToBatch();
    if (!combined.ok()) return {"<" + combined.status().ToString() + ">"};
    const auto& batch = **combined;
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (int c = 0; c < batch.num_columns(); ++c) {
        if (c > 0) row += '|';
        AppendTextValue(*batch.column(c), r, /*csv=*/false, &row);
      }
      out.push_back(std::move(row));
    }
    return out;
  }

  /// Run and return the rows; fails the test on an error.
  std::vector<std::string> Query(const std::string& sql) {
    auto table = Run(sql);
    EXPECT_TRUE(table) << sql << ": " << table.error().ToString();
    return table ? Rows(**table) : std::vector<std::string>{};
  }

  /// The error of a query that must fail.
  Error QueryError(const std::string& sql) {
    auto table = Run(sql);
    EXPECT_FALSE(table) << sql << " unexpectedly succeeded";
    return table ? Error{ErrorCode::kInternal, "no error"} : table.error();
  }

  static std::vector<std::string> Names(const arrow::Table& table) {
    std::vector<std::string> out;
    for (const auto& f : table.schema()->fields()) out.push_back(f->name());
    return out;
  }

  /// Create a table named `name` in the warehouse with the DDL columns.
  std::string CreateTableNamed(const std::string& name, const std::string& ddl) {
    TableRef ref;
    ref.kind = TableRef::Kind::kName;
    for (auto part : Split(name, '.')) ref.parts.emplace_back(part);
    auto resolved = catalog_->Resolve(ref, "default");
    EXPECT_TRUE(resolved) << resolved.error().ToString();
    auto schema = ParseDdlSchema(ddl);
    EXPECT_TRUE(schema) << schema.error().ToString();
    CreateTableOptions options;
    options.schema = *schema;
    auto created = CreateTable(fs_, resolved->path, options);
    EXPECT_TRUE(created) << created.error().ToString();
    return resolved->path;
  }

  /// Append `values` ("VALUES (...), (...)") to the table at `path`, typed by its schema.
  void Insert(const std::string& path, const std::string& values) {
    auto snapshot = OpenSnapshot(fs_, path);
    ASSERT_TRUE(snapshot) << snapshot.error().ToString();
    PlanOptions options;
    options.values_target = (*snapshot)->schema().get();
    std::string names;
    for (const auto& f : (*snapshot)->schema()->fields()) {
      names += (names.empty() ? "" : ", ") + f.name;
    }
    auto plan = Plan("SELECT * FROM " + values + " AS v(" + names + ")", options);
    ASSERT_TRUE(plan) << values << ": " << plan.error().ToString();
    auto reader = plan->open();
    ASSERT_TRUE(reader) << reader.error().ToString();
    auto written = WriteTable(fs_, path, {SourceFromReader("VALUES", *reader)}, {});
    ASSERT_TRUE(written) << written.error().ToString();
  }

  /// orders(id INT, region STRING, qty INT, amount DECIMAL(10,2), name STRING) with 5
  /// rows, one NULL region and one NULL qty.
  std::string CreateOrders() {
    std::string path = CreateTableNamed(
        "orders", "id INT, region STRING, qty INT, amount DECIMAL(10,2), name STRING");
    Insert(path,
           "VALUES (1, 'east', 2, 10.50, 'ann'), (2, 'west', 5, 3.25, 'bob'), "
           "(3, 'east', NULL, 7.00, 'cid'), (4, NULL, 1, 1.10, 'dee'), "
           "(5, 'west', 3, 2.00, 'eve')");
    return path;
  }

  TempDir dir_;
  FileSystemRef fs_;
  std::unique_ptr<Catalog> catalog_;
  std::map<std::string, SelectRef> views_;
};

}  // namespace deltaguard::testing

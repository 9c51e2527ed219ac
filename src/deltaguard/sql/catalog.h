/// \file deltaguard/sql/catalog.h
/// Table names without a server: names resolve in a warehouse directory laid out as
/// Spark's default (Hive-style) warehouse does, so Spark pointed at the same
/// `spark.sql.warehouse.dir` finds the same tables:
///   - database `default` is the warehouse directory itself: `orders` and
///     `default.orders` are `<warehouse>/orders`;
///   - any other database `db` is the directory `<warehouse>/db.db`, and `db.orders` is
///     `<warehouse>/db.db/orders`.
/// A table created with LOCATION (an external table) is recorded in the database's
/// registry file `_deltaguard_external.json` (name -> absolute location), written
/// atomically (temp file + rename); DROP TABLE forgets an external table and deletes a
/// managed table's directory, as Spark does.
/// Names are case-insensitive: directories are created lower-case.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/sql/parse/statement.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct ResolvedTable {
  std::string path;      ///< absolute table directory
  std::string display;   ///< "silver.orders", or the path for path references
  std::string database;  ///< lower-case; empty for path references
  std::string name;      ///< lower-case table name; empty for path references
  bool managed = false;  ///< a name without a registered external location
  bool exists = false;   ///< `path` holds `_delta_log`
};

class Catalog {
 public:
  /// `warehouse` may be relative (resolved against the working directory); it is
  /// created on the first CREATE.
  Catalog(FileSystemRef fs, std::string warehouse);

  const std::string& warehouse() const { return warehouse_; }

  /// Resolve a reference. `current_database` applies to one-part names. A database
  /// that does not exist is kNotFound ("database 'x' does not exist"); three-part
  /// names are kInvalidArgument. The table need not exist (see `exists`).
  Result<ResolvedTable> Resolve(const TableRef& ref,
                                const std::string& current_database) const;

  /// Record a name for an external table (CREATE TABLE name ... LOCATION). Fails with
  /// kAlreadyExists when the name is taken by a table at another location.
  Status RegisterExternal(const ResolvedTable& table, const std::string& location);
  /// Forget a name (DROP TABLE); deletes the directory of a managed table.
  Status DropTable(const ResolvedTable& table);

  Status CreateDatabase(const std::string& name, bool if_not_exists,
                        const std::optional<std::string>& location);
  /// Non-empty databases need cascade (then every managed table is deleted).
  Status DropDatabase(const std::string& name, bool if_exists, bool cascade);
  bool DatabaseExists(const std::string& name) const;
  /// Sorted, lower-case; always includes "default".
  Result<std::vector<std::string>> ListDatabases() const;
  /// Sorted table names of a database: managed tables (directories holding
  /// `_delta_log`) and registered external ones.
  Result<std::vector<std::string>> ListTables(const std::string& database) const;

 private:
  FileSystemRef fs_;
  std::string warehouse_;
};

}  // namespace deltaguard

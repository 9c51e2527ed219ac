#include "deltaguard/sql/catalog.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "deltaguard/table/table.h"
#include "deltaguard/util/json_bounded.h"
#include "deltaguard/util/string_util.h"

// Every access goes through the FileSystem (reads, the atomic registry write, listings,
// every delete and directory removal), so fault injection sees them and another
// storage only needs another FileSystem.

namespace deltaguard {

namespace {

constexpr std::string_view kRegistryFile = "_deltaguard_external.json";
constexpr std::string_view kDefaultDatabase = "default";

using Registry = std::vector<std::pair<std::string, std::string>>;  // name -> location

// Database and table names become directory names: refuse what cannot be one.
Status CheckName(std::string_view what, const std::string& name) {
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of("/\\") != std::string::npos || name.front() == '_') {
    return MakeError(ErrorCode::kInvalidArgument, "invalid {} name '{}'", what, name);
  }
  return OkStatus();
}

Result<Registry> ParseRegistry(const std::string& text, const std::string& path) {
  rapidjson::Document doc;
  if (ParseBoundedJson(text, &doc) != JsonParseOutcome::kOk || !doc.IsObject()) {
    return MakeError(ErrorCode::kCorruptData,
                     "table registry '{}' is not a JSON object of name -> location",
                     path);
  }
  Registry out;
  for (const auto& m : doc.GetObject()) {
    if (!m.value.IsString()) {
      return MakeError(ErrorCode::kCorruptData,
                       "table registry '{}': location of '{}' is not a string", path,
                       m.name.GetString());
    }
    out.emplace_back(AsciiToLower(m.name.GetString()), m.value.GetString());
  }
  return out;
}

std::string SerializeRegistry(Registry registry) {
  std::sort(registry.begin(), registry.end());
  std::string out = "{";
  for (size_t i = 0; i < registry.size(); ++i) {
    out += i == 0 ? "\n  " : ",\n  ";
    AppendJsonString(&out, registry[i].first);
    out += ": ";
    AppendJsonString(&out, registry[i].second);
  }
  out += registry.empty() ? "}\n" : "\n}\n";
  return out;
}

// Sub-directories of `dir` (names), sorted; a missing directory has none.
Result<std::vector<std::string>> ListSubdirectories(const FileSystem& fs,
                                                    const std::string& dir) {
  auto dirs = fs.ListDirs(dir);
  if (!dirs) {
    if (dirs.error().code == ErrorCode::kNotFound) return std::vector<std::string>{};
    return dirs.error();
  }
  std::vector<std::string> out;
  for (const FileInfo& d : *dirs) {
    const size_t slash = d.path.rfind('/');
    out.push_back(slash == std::string::npos ? d.path : d.path.substr(slash + 1));
  }
  return out;  // ListDirs sorts by path, so by name
}

}  // namespace

Catalog::Catalog(FileSystemRef fs, std::string warehouse) : fs_(std::move(fs)) {
  if (fs_ == nullptr) fs_ = MakeLocalFileSystem();
  auto normalized = NormalizeTablePath(warehouse);
  warehouse_ = normalized ? *normalized : std::move(warehouse);
}

namespace {

std::string DatabaseDir(const std::string& warehouse, const std::string& db) {
  if (db == kDefaultDatabase) return warehouse;
  return JoinPath(warehouse, db + ".db");
}

Result<Registry> ReadRegistry(const FileSystem& fs, const std::string& db_dir) {
  std::string path = JoinPath(db_dir, kRegistryFile);
  auto text = fs.ReadFile(path);
  if (!text) {
    if (text.error().code == ErrorCode::kNotFound) return Registry{};
    return WithContext(text.error(), fmt::format("table registry '{}'", path));
  }
  return ParseRegistry(*text, path);
}

Status WriteRegistry(FileSystem* fs, const std::string& db_dir,
                     const Registry& registry) {
  DELTA_RETURN_IF_ERROR(fs->CreateDirs(db_dir));
  // FileSystem::Write is atomic (temp file + rename): readers never see a torn file.
  return fs->Write(JoinPath(db_dir, kRegistryFile), SerializeRegistry(registry));
}

const std::string* FindRegistered(const Registry& registry, const std::string& name) {
  for (const auto& [n, loc] : registry) {
    if (n == name) return &loc;
  }
  return nullptr;
}

// Delete `dir` and everything below it: the files, then the emptied directories,
// deepest first. Symbolic links to directories are not followed (ListDirs), so such a
// link makes the removal of its directory fail rather than reach outside the tree.
Status DeleteTree(FileSystem* fs, const std::string& dir) {
  std::vector<std::string> dirs{dir};
  for (size_t i = 0; i < dirs.size(); ++i) {  // breadth first: parents before children
    DELTA_ASSIGN_OR_RETURN(std::vector<FileInfo> files, fs->List(dirs[i]));
    for (const FileInfo& f : files) {
      Status st = fs->Delete(f.path);
      if (!st && st.error().code != ErrorCode::kNotFound) return st;
    }
    DELTA_ASSIGN_OR_RETURN(std::vector<FileInfo> children, fs->ListDirs(dirs[i]));
    for (FileInfo& c : children) dirs.push_back(std::move(c.path));
  }
  for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) {
    DELTA_RETURN_IF_ERROR(fs->DeleteEmptyDir(*d));
  }
  return OkStatus();
}

}  // namespace

bool Catalog::DatabaseExists(const std::string& name) const {
  std::string db = AsciiToLower(name);
  if (db == kDefaultDatabase) return true;
  if (!CheckName("database", db)) return false;
  auto exists = fs_->Exists(DatabaseDir(warehouse_, db));
  return exists && *exists;
}

Result<ResolvedTable> Catalog::Resolve(const TableRef& ref,
                                       const std::string& current_database) const {
  ResolvedTable out;
  if (ref.kind == TableRef::Kind::kPath) {
    DELTA_ASSIGN_OR_RETURN(out.path, NormalizeTablePath(ref.path));
    out.display = out.path;
  } else {
    if (ref.parts.empty() || ref.parts.size() > 2) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table name '{}' has {} parts; use 'table' or 'database.table'",
                       ref.ToString(), ref.parts.size());
    }
    out.database = AsciiToLower(ref.parts.size() == 2 ? ref.parts[0] : current_database);
    out.name = AsciiToLower(ref.parts.back());
    DELTA_RETURN_IF_ERROR(CheckName("table", out.name));
    if (!DatabaseExists(out.database)) {
      return MakeError(ErrorCode::kNotFound, "database '{}' does not exist",
                       out.database);
    }
    out.display = ref.parts.size() == 1 && out.database == kDefaultDatabase
                      ? out.name
                      : out.database + "." + out.name;
    std::string db_dir = DatabaseDir(warehouse_, out.database);
    DELTA_ASSIGN_OR_RETURN(Registry registry, ReadRegistry(*fs_, db_dir));
    if (const std::string* location = FindRegistered(registry, out.name)) {
      out.path = *location;
    } else {
      out.path = JoinPath(db_dir, out.name);
      out.managed = true;
    }
  }
  DELTA_ASSIGN_OR_RETURN(out.exists, fs_->Exists(JoinPath(out.path, "_delta_log")));
  return out;
}

Status Catalog::RegisterExternal(const ResolvedTable& table,
                                 const std::string& location) {
  if (table.name.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot register a path reference '{}' as a table name",
                     table.display);
  }
  DELTA_ASSIGN_OR_RETURN(std::string abs, NormalizeTablePath(location));
  std::string db_dir = DatabaseDir(warehouse_, table.database);
  DELTA_ASSIGN_OR_RETURN(Registry registry, ReadRegistry(*fs_, db_dir));
  if (const std::string* existing = FindRegistered(registry, table.name)) {
    if (*existing == abs) return OkStatus();
    return MakeError(ErrorCode::kAlreadyExists,
                     "table '{}' already exists at '{}' (cannot register it at '{}')",
                     table.display, *existing, abs);
  }
  std::string managed_path = JoinPath(db_dir, table.name);
  DELTA_ASSIGN_OR_RETURN(bool managed_exists,
                         fs_->Exists(JoinPath(managed_path, "_delta_log")));
  if (managed_exists && managed_path != abs) {
    return MakeError(ErrorCode::kAlreadyExists,
                     "table '{}' already exists at '{}' (cannot register it at '{}')",
                     table.display, managed_path, abs);
  }
  registry.emplace_back(table.name, abs);
  return WriteRegistry(fs_.get(), db_dir, registry);
}

Status Catalog::DropTable(const ResolvedTable& table) {
  if (table.name.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot drop path reference '{}': only named tables can be dropped",
                     table.display);
  }
  std::string db_dir = DatabaseDir(warehouse_, table.database);
  if (!table.managed) {
    DELTA_ASSIGN_OR_RETURN(Registry registry, ReadRegistry(*fs_, db_dir));
    auto it = std::find_if(registry.begin(), registry.end(),
                           [&](const auto& e) { return e.first == table.name; });
    if (it == registry.end()) {
      return MakeError(ErrorCode::kNotFound, "table '{}' does not exist", table.display);
    }
    registry.erase(it);
    return WriteRegistry(fs_.get(), db_dir, registry);
  }
  // A managed table's directory lies directly in its database directory; never delete
  // anything else.
  std::string expected = JoinPath(db_dir, table.name);
  if (table.path != expected) {
    return MakeError(ErrorCode::kInternal,
                     "managed table '{}' resolved to '{}', expected '{}'", table.display,
                     table.path, expected);
  }
  DELTA_ASSIGN_OR_RETURN(bool exists, fs_->Exists(expected));
  if (!exists) {
    return MakeError(ErrorCode::kNotFound, "table '{}' does not exist", table.display);
  }
  return DeleteTree(fs_.get(), expected);
}

Status Catalog::CreateDatabase(const std::string& name, bool if_not_exists,
                               const std::optional<std::string>& location) {
  std::string db = AsciiToLower(name);
  DELTA_RETURN_IF_ERROR(CheckName("database", db));
  std::string dir = DatabaseDir(warehouse_, db);
  if (location) {
    DELTA_ASSIGN_OR_RETURN(std::string abs, NormalizeTablePath(*location));
    if (abs != dir) {
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "CREATE DATABASE '{}' LOCATION '{}': databases live in the "
                       "warehouse, at '{}'",
                       db, *location, dir);
    }
  }
  if (DatabaseExists(db)) {
    if (if_not_exists) return OkStatus();
    return MakeError(ErrorCode::kAlreadyExists, "database '{}' already exists", db);
  }
  return fs_->CreateDirs(dir);
}

Status Catalog::DropDatabase(const std::string& name, bool if_exists, bool cascade) {
  std::string db = AsciiToLower(name);
  if (db == kDefaultDatabase) {
    return MakeError(ErrorCode::kInvalidArgument, "cannot drop the default database");
  }
  if (!DatabaseExists(db)) {
    if (if_exists) return OkStatus();
    return MakeError(ErrorCode::kNotFound, "database '{}' does not exist", db);
  }
  DELTA_ASSIGN_OR_RETURN(std::vector<std::string> tables, ListTables(db));
  if (!tables.empty() && !cascade) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot drop database '{}': it contains {} table(s) ({}); use "
                     "CASCADE to drop them too",
                     db, tables.size(), fmt::join(tables, ", "));
  }
  // Managed tables are directories inside the database directory, and external tables
  // are only names in its registry: deleting the directory drops both, as Spark's
  // DROP DATABASE ... CASCADE does (external data stays where it is).
  return DeleteTree(fs_.get(), DatabaseDir(warehouse_, db));
}

Result<std::vector<std::string>> Catalog::ListDatabases() const {
  std::vector<std::string> out{std::string(kDefaultDatabase)};
  DELTA_ASSIGN_OR_RETURN(std::vector<std::string> dirs,
                         ListSubdirectories(*fs_, warehouse_));
  for (const auto& d : dirs) {
    if (d.size() > 3 && d.ends_with(".db"))
      out.push_back(AsciiToLower(d.substr(0, d.size() - 3)));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<std::vector<std::string>> Catalog::ListTables(const std::string& database) const {
  std::string db = AsciiToLower(database);
  if (!DatabaseExists(db)) {
    return MakeError(ErrorCode::kNotFound, "database '{}' does not exist", db);
  }
  std::string dir = DatabaseDir(warehouse_, db);
  std::vector<std::string> out;
  DELTA_ASSIGN_OR_RETURN(std::vector<std::string> dirs, ListSubdirectories(*fs_, dir));
  for (const auto& d : dirs) {
    if (db == kDefaultDatabase && d.ends_with(".db")) continue;  // another database
    DELTA_ASSIGN_OR_RETURN(bool is_table,
                           fs_->Exists(JoinPath(JoinPath(dir, d), "_delta_log")));
    if (is_table) out.push_back(AsciiToLower(d));
  }
  DELTA_ASSIGN_OR_RETURN(Registry registry, ReadRegistry(*fs_, dir));
  for (const auto& entry : registry) out.push_back(entry.first);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace deltaguard

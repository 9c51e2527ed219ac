// Checkpoint and schema location files (ingest/state.h).

#include "deltaguard/ingest/state.h"

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>

#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/util/uuid.h"

namespace deltaguard {
namespace {

std::string Join(const std::string& dir, const std::string& name) {
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

// The number a state file is named by; nullopt for other names.
std::optional<int64_t> Numbered(const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string_view name = slash == std::string::npos
                              ? std::string_view(path)
                              : std::string_view(path).substr(slash + 1);
  int64_t n = 0;
  auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
  if (ec != std::errc() || p != name.data() + name.size() || n < 0) return std::nullopt;
  return n;
}

Result<rapidjson::Document> ParseState(const FileSystem& fs, const std::string& path) {
  DELTA_ASSIGN_OR_RETURN(std::string text, fs.ReadFile(path));
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return MakeError(ErrorCode::kCorruptData,
                     "'{}' is not a JSON object; the file is damaged (restore it, or "
                     "start with a new checkpoint)",
                     path);
  }
  return doc;
}

Result<int64_t> Int(const rapidjson::Value& v, const char* key, const std::string& path) {
  if (!v.HasMember(key) || !v[key].IsInt64()) {
    return MakeError(ErrorCode::kCorruptData, "'{}': '{}' is missing or not a number",
                     path, key);
  }
  return v[key].GetInt64();
}

Result<std::string> Text(const rapidjson::Value& v, const char* key,
                         const std::string& path) {
  if (!v.HasMember(key) || !v[key].IsString()) {
    return MakeError(ErrorCode::kCorruptData, "'{}': '{}' is missing or not a string",
                     path, key);
  }
  return std::string(v[key].GetString(), v[key].GetStringLength());
}

std::vector<std::string> Strings(const rapidjson::Value& v, const char* key) {
  std::vector<std::string> out;
  if (v.HasMember(key) && v[key].IsArray()) {
    for (const auto& s : v[key].GetArray()) {
      if (s.IsString()) out.emplace_back(s.GetString(), s.GetStringLength());
    }
  }
  return out;
}

Result<std::vector<int64_t>> NumberedFiles(const FileSystem& fs, const std::string& dir) {
  std::vector<int64_t> out;
  auto files = fs.List(dir);
  if (!files) {
    if (files.error().code == ErrorCode::kNotFound) return out;
    return files.error();
  }
  for (const auto& f : *files) {
    if (auto n = Numbered(f.path)) out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<std::vector<SchemaVersion>> ReadSchemaHistory(const FileSystem& fs,
                                                     const std::string& location) {
  const std::string dir = Join(location, "_schemas");
  DELTA_ASSIGN_OR_RETURN(auto numbers, NumberedFiles(fs, dir));
  std::vector<SchemaVersion> out;
  for (int64_t n : numbers) {
    const std::string path = Join(dir, std::to_string(n));
    DELTA_ASSIGN_OR_RETURN(auto doc, ParseState(fs, path));
    SchemaVersion v;
    v.version = n;
    DELTA_ASSIGN_OR_RETURN(v.batch, Int(doc, "batch", path));
    DELTA_ASSIGN_OR_RETURN(std::string schema, Text(doc, "schema", path));
    auto parsed = ParseSchemaJson(schema);
    if (!parsed) return WithContext(parsed.error(), fmt::format("schema in '{}'", path));
    v.schema = std::move(*parsed);
    v.added = Strings(doc, "added");
    v.widened = Strings(doc, "widened");
    if (doc.HasMember("reason") && doc["reason"].IsString())
      v.reason = doc["reason"].GetString();
    if (doc.HasMember("created_ms") && doc["created_ms"].IsInt64()) {
      v.created_ms = doc["created_ms"].GetInt64();
    }
    out.push_back(std::move(v));
  }
  return out;
}

Status WriteSchemaVersion(FileSystem& fs, const std::string& location,
                          const SchemaVersion& v) {
  const std::string dir = Join(location, "_schemas");
  DELTA_RETURN_IF_ERROR(fs.CreateDirs(dir));
  std::string out = "{";
  AppendJsonRawField(&out, "batch", std::to_string(v.batch));
  AppendJsonField(&out, "schema", SchemaToJson(*v.schema));
  std::string added, widened;
  AppendJsonStringArray(v.added, &added);
  AppendJsonStringArray(v.widened, &widened);
  AppendJsonRawField(&out, "added", added);
  AppendJsonRawField(&out, "widened", widened);
  AppendJsonField(&out, "reason", v.reason);
  AppendJsonRawField(&out, "created_ms", std::to_string(v.created_ms));
  out += "}\n";
  return fs.PutIfAbsent(Join(dir, std::to_string(v.version)), out);
}

Result<IngestCheckpoint> IngestCheckpoint::Open(FileSystemRef fs, std::string dir,
                                                const std::string& source,
                                                const std::string& table,
                                                int64_t now_ms) {
  IngestCheckpoint cp;
  cp.fs_ = fs;
  cp.dir_ = dir;
  const std::string meta = Join(dir, "metadata");
  DELTA_ASSIGN_OR_RETURN(bool exists, fs->Exists(meta));
  if (!exists) {
    DELTA_RETURN_IF_ERROR(fs->CreateDirs(dir));
    std::string out = "{";
    AppendJsonField(&out, "id", GenerateUuidV4());
    AppendJsonField(&out, "source", source);
    AppendJsonField(&out, "table", table);
    AppendJsonRawField(&out, "start_ms", std::to_string(now_ms));
    out += "}\n";
    auto put = fs->PutIfAbsent(meta, out);
    if (!put && put.error().code != ErrorCode::kAlreadyExists) return put.error();
  }
  DELTA_ASSIGN_OR_RETURN(auto doc, ParseState(*fs, meta));
  DELTA_ASSIGN_OR_RETURN(cp.app_id_, Text(doc, "id", meta));
  DELTA_ASSIGN_OR_RETURN(cp.start_ms_, Int(doc, "start_ms", meta));
  DELTA_ASSIGN_OR_RETURN(std::string was_source, Text(doc, "source", meta));
  DELTA_ASSIGN_OR_RETURN(std::string was_table, Text(doc, "table", meta));
  if (was_source != source || was_table != table) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "the checkpoint '{}' belongs to the ingestion of '{}' into '{}', not "
        "'{}' into '{}'; each source and table needs its own checkpoint",
        dir, was_source, was_table, source, table);
  }
  DELTA_ASSIGN_OR_RETURN(auto planned, NumberedFiles(*fs, Join(dir, "offsets")));
  DELTA_ASSIGN_OR_RETURN(auto committed, NumberedFiles(*fs, Join(dir, "commits")));
  for (int64_t n : planned) {
    const std::string path = Join(Join(dir, "offsets"), std::to_string(n));
    DELTA_ASSIGN_OR_RETURN(auto d, ParseState(*fs, path));
    PlannedBatch b;
    b.batch = n;
    DELTA_ASSIGN_OR_RETURN(b.schema_version, Int(d, "schema_version", path));
    if (!d.HasMember("files") || !d["files"].IsArray()) {
      return MakeError(ErrorCode::kCorruptData, "'{}': 'files' is missing", path);
    }
    for (const auto& f : d["files"].GetArray()) {
      IngestFile file;
      DELTA_ASSIGN_OR_RETURN(file.path, Text(f, "path", path));
      DELTA_ASSIGN_OR_RETURN(file.size, Int(f, "size", path));
      DELTA_ASSIGN_OR_RETURN(file.modification_time, Int(f, "modification_time", path));
      if (f.HasMember("partition") && f["partition"].IsObject()) {
        for (const auto& m : f["partition"].GetObject()) {
          if (m.value.IsString()) {
            file.partition_values.emplace_back(m.name.GetString(), m.value.GetString());
          }
        }
      }
      cp.taken_[file.path] = TakenFile{file.path, file.size, file.modification_time, n};
      b.files.push_back(std::move(file));
    }
    if (!std::binary_search(committed.begin(), committed.end(), n)) {
      if (cp.pending_) {
        return MakeError(ErrorCode::kCorruptData,
                         "the checkpoint '{}' has batches {} and {} both planned and not "
                         "committed; only the newest batch can be pending",
                         dir, cp.pending_->batch, n);
      }
      cp.pending_ = std::move(b);
    }
    cp.next_batch_ = n + 1;
  }
  return cp;
}

const TakenFile* IngestCheckpoint::Taken(const std::string& path) const {
  auto it = taken_.find(path);
  return it == taken_.end() ? nullptr : &it->second;
}

Status IngestCheckpoint::Plan(const PlannedBatch& b) {
  const std::string dir = Join(dir_, "offsets");
  DELTA_RETURN_IF_ERROR(fs_->CreateDirs(dir));
  std::string out = "{";
  AppendJsonRawField(&out, "batch", std::to_string(b.batch));
  AppendJsonRawField(&out, "schema_version", std::to_string(b.schema_version));
  std::string files = "[";
  for (const auto& f : b.files) {
    std::string one = "{";
    AppendJsonField(&one, "path", f.path);
    AppendJsonRawField(&one, "size", std::to_string(f.size));
    AppendJsonRawField(&one, "modification_time", std::to_string(f.modification_time));
    if (!f.partition_values.empty()) {
      std::string p = "{";
      for (const auto& [k, v] : f.partition_values) AppendJsonField(&p, k, v);
      AppendJsonRawField(&one, "partition", p + "}");
    }
    files += (files.size() > 1 ? "," : "") + one + "}";
  }
  AppendJsonRawField(&out, "files", files + "]");
  out += "}\n";
  DELTA_RETURN_IF_ERROR(fs_->PutIfAbsent(Join(dir, std::to_string(b.batch)), out));
  for (const auto& f : b.files) {
    taken_[f.path] = TakenFile{f.path, f.size, f.modification_time, b.batch};
  }
  pending_ = b;
  next_batch_ = b.batch + 1;
  return OkStatus();
}

Status IngestCheckpoint::Commit(int64_t batch, int64_t table_version, int64_t rows) {
  const std::string dir = Join(dir_, "commits");
  DELTA_RETURN_IF_ERROR(fs_->CreateDirs(dir));
  std::string out = "{";
  AppendJsonRawField(&out, "batch", std::to_string(batch));
  AppendJsonRawField(&out, "table_version", std::to_string(table_version));
  AppendJsonRawField(&out, "rows", std::to_string(rows));
  out += "}\n";
  auto put = fs_->PutIfAbsent(Join(dir, std::to_string(batch)), out);
  if (!put && put.error().code != ErrorCode::kAlreadyExists) return put;
  if (pending_ && pending_->batch == batch) pending_.reset();
  return OkStatus();
}

}  // namespace deltaguard

// Parsing of commit-file lines into actions (PROTOCOL.md "Actions"; digest §2).
//
// Each line is parsed into a per-thread reusable RapidJSON DOM and then copied field by
// field into the plain action structs. Fields are dispatched in one pass over the
// object's members, so unknown fields cost one failed comparison chain and are ignored
// (PROTOCOL.md "Protocol Evolution").

#include "deltaguard/log/actions.h"

#include <algorithm>
#include <cstring>

#include "deltaguard/log/json_internal.h"

namespace deltaguard {

using internal::JsonContext;
using internal::JsonValue;
using internal::Key;

namespace {

Status RequireObject(const JsonContext& ctx, std::string_view what, const JsonValue& v) {
  if (!v.IsObject()) {
    return ctx.Fail("{} must be an object, found {}", what, internal::JsonTypeName(v));
  }
  return OkStatus();
}

Error Missing(const JsonContext& ctx, std::string_view action, std::string_view field) {
  return ctx.Fail("{} is missing required field '{}'", action, field);
}

Result<std::optional<DeletionVectorDescriptor>> ParseDv(const JsonContext& ctx,
                                                        std::string_view what,
                                                        const JsonValue& v) {
  if (v.IsNull()) return std::optional<DeletionVectorDescriptor>();
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, what, v));
  DeletionVectorDescriptor dv;
  bool has_type = false, has_path = false, has_size = false, has_card = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    if (k == "storageType") {
      std::string t;
      DELTA_RETURN_IF_ERROR(
          internal::ReadString(ctx, "deletionVector.storageType", m.value, &t));
      if (t != "u" && t != "i" && t != "p") {
        return ctx.Fail("{}.storageType must be 'u', 'i' or 'p', found '{}'", what, t);
      }
      dv.storage_type = t[0];
      has_type = true;
    } else if (k == "pathOrInlineDv") {
      DELTA_RETURN_IF_ERROR(internal::ReadString(ctx, "deletionVector.pathOrInlineDv",
                                                 m.value, &dv.path_or_inline_dv));
      has_path = true;
    } else if (k == "offset") {
      if (!m.value.IsNull()) {
        int32_t off = 0;
        DELTA_RETURN_IF_ERROR(
            internal::ReadInt32(ctx, "deletionVector.offset", m.value, &off));
        dv.offset = off;
      }
    } else if (k == "sizeInBytes") {
      DELTA_RETURN_IF_ERROR(internal::ReadInt32(ctx, "deletionVector.sizeInBytes",
                                                m.value, &dv.size_in_bytes));
      has_size = true;
    } else if (k == "cardinality") {
      DELTA_RETURN_IF_ERROR(internal::ReadInt64(ctx, "deletionVector.cardinality",
                                                m.value, &dv.cardinality));
      has_card = true;
    } else if (k == "maxRowIndex") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptInt64(ctx, "deletionVector.maxRowIndex",
                                                   m.value, &dv.max_row_index));
    }
  }
  if (!has_type) return Missing(ctx, what, "storageType");
  if (!has_path) return Missing(ctx, what, "pathOrInlineDv");
  if (!has_size) return Missing(ctx, what, "sizeInBytes");
  if (!has_card) return Missing(ctx, what, "cardinality");
  return std::optional<DeletionVectorDescriptor>(std::move(dv));
}

Result<AddFile> ParseAdd(const JsonContext& ctx, const JsonValue& v) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "add", v));
  AddFile a;
  bool has_path = false, has_pv = false, has_size = false, has_mtime = false,
       has_dc = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    const JsonValue& x = m.value;
    if (k == "path") {
      DELTA_RETURN_IF_ERROR(internal::ReadString(ctx, "add.path", x, &a.path));
      has_path = true;
    } else if (k == "partitionValues") {
      DELTA_RETURN_IF_ERROR(internal::ReadPartitionValues(ctx, "add.partitionValues", x,
                                                          &a.partition_values));
      has_pv = true;
    } else if (k == "size") {
      DELTA_RETURN_IF_ERROR(internal::ReadInt64(ctx, "add.size", x, &a.size));
      has_size = true;
    } else if (k == "modificationTime") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadInt64(ctx, "add.modificationTime", x, &a.modification_time));
      has_mtime = true;
    } else if (k == "dataChange") {
      DELTA_RETURN_IF_ERROR(internal::ReadBool(ctx, "add.dataChange", x, &a.data_change));
      has_dc = true;
    } else if (k == "stats") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptString(ctx, "add.stats", x, &a.stats));
    } else if (k == "tags") {
      DELTA_RETURN_IF_ERROR(internal::ReadStringMap(ctx, "add.tags", x, &a.tags));
    } else if (k == "deletionVector") {
      DELTA_ASSIGN_OR_RETURN(a.deletion_vector, ParseDv(ctx, "add.deletionVector", x));
    } else if (k == "baseRowId") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadOptInt64(ctx, "add.baseRowId", x, &a.base_row_id));
    } else if (k == "defaultRowCommitVersion") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptInt64(ctx, "add.defaultRowCommitVersion", x,
                                                   &a.default_row_commit_version));
    } else if (k == "clusteringProvider") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptString(ctx, "add.clusteringProvider", x,
                                                    &a.clustering_provider));
    }
  }
  if (!has_path) return Missing(ctx, "add", "path");
  if (!has_pv) return Missing(ctx, "add", "partitionValues");
  if (!has_size) return Missing(ctx, "add", "size");
  if (!has_mtime) return Missing(ctx, "add", "modificationTime");
  if (!has_dc) return Missing(ctx, "add", "dataChange");
  return a;
}

Result<RemoveFile> ParseRemove(const JsonContext& ctx, const JsonValue& v) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "remove", v));
  RemoveFile r;
  bool has_path = false, has_dc = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    const JsonValue& x = m.value;
    if (k == "path") {
      DELTA_RETURN_IF_ERROR(internal::ReadString(ctx, "remove.path", x, &r.path));
      has_path = true;
    } else if (k == "deletionTimestamp") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptInt64(ctx, "remove.deletionTimestamp", x,
                                                   &r.deletion_timestamp));
    } else if (k == "dataChange") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadBool(ctx, "remove.dataChange", x, &r.data_change));
      has_dc = true;
    } else if (k == "extendedFileMetadata") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptBool(ctx, "remove.extendedFileMetadata", x,
                                                  &r.extended_file_metadata));
    } else if (k == "partitionValues") {
      if (!x.IsNull()) {
        PartitionValues pv;
        DELTA_RETURN_IF_ERROR(
            internal::ReadPartitionValues(ctx, "remove.partitionValues", x, &pv));
        r.partition_values = std::move(pv);
      }
    } else if (k == "size") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptInt64(ctx, "remove.size", x, &r.size));
    } else if (k == "stats") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptString(ctx, "remove.stats", x, &r.stats));
    } else if (k == "tags") {
      DELTA_RETURN_IF_ERROR(internal::ReadStringMap(ctx, "remove.tags", x, &r.tags));
    } else if (k == "deletionVector") {
      DELTA_ASSIGN_OR_RETURN(r.deletion_vector, ParseDv(ctx, "remove.deletionVector", x));
    } else if (k == "baseRowId") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadOptInt64(ctx, "remove.baseRowId", x, &r.base_row_id));
    } else if (k == "defaultRowCommitVersion") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptInt64(ctx, "remove.defaultRowCommitVersion",
                                                   x, &r.default_row_commit_version));
    }
  }
  if (!has_path) return Missing(ctx, "remove", "path");
  if (!has_dc) return Missing(ctx, "remove", "dataChange");
  return r;
}

Result<Metadata> ParseMetadata(const JsonContext& ctx, const JsonValue& v) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "metaData", v));
  Metadata md;
  bool has_id = false, has_format = false, has_pc = false, has_conf = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    const JsonValue& x = m.value;
    if (k == "id") {
      DELTA_RETURN_IF_ERROR(internal::ReadString(ctx, "metaData.id", x, &md.id));
      has_id = true;
    } else if (k == "name") {
      DELTA_RETURN_IF_ERROR(internal::ReadOptString(ctx, "metaData.name", x, &md.name));
    } else if (k == "description") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadOptString(ctx, "metaData.description", x, &md.description));
    } else if (k == "format") {
      DELTA_RETURN_IF_ERROR(RequireObject(ctx, "metaData.format", x));
      bool has_provider = false;
      for (const auto& f : x.GetObject()) {
        std::string_view fk = Key(f.name);
        if (fk == "provider") {
          DELTA_RETURN_IF_ERROR(internal::ReadString(ctx, "metaData.format.provider",
                                                     f.value, &md.format.provider));
          has_provider = true;
        } else if (fk == "options") {
          DELTA_RETURN_IF_ERROR(internal::ReadStringMap(ctx, "metaData.format.options",
                                                        f.value, &md.format.options));
        }
      }
      if (!has_provider) return Missing(ctx, "metaData.format", "provider");
      has_format = true;
    } else if (k == "schemaString") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadString(ctx, "metaData.schemaString", x, &md.schema_string));
    } else if (k == "partitionColumns") {
      DELTA_RETURN_IF_ERROR(internal::ReadStringArray(ctx, "metaData.partitionColumns", x,
                                                      &md.partition_columns));
      has_pc = true;
    } else if (k == "configuration") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadStringMap(ctx, "metaData.configuration", x, &md.configuration));
      has_conf = true;
    } else if (k == "createdTime") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadOptInt64(ctx, "metaData.createdTime", x, &md.created_time));
    }
  }
  if (!has_id) return Missing(ctx, "metaData", "id");
  if (!has_format) return Missing(ctx, "metaData", "format");
  if (!has_pc) return Missing(ctx, "metaData", "partitionColumns");
  if (!has_conf) return Missing(ctx, "metaData", "configuration");
  return md;
}

Result<Protocol> ParseProtocol(const JsonContext& ctx, const JsonValue& v) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "protocol", v));
  Protocol p;
  bool has_reader = false, has_writer = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    const JsonValue& x = m.value;
    if (k == "minReaderVersion") {
      DELTA_RETURN_IF_ERROR(internal::ReadInt32(ctx, "protocol.minReaderVersion", x,
                                                &p.min_reader_version));
      has_reader = true;
    } else if (k == "minWriterVersion") {
      DELTA_RETURN_IF_ERROR(internal::ReadInt32(ctx, "protocol.minWriterVersion", x,
                                                &p.min_writer_version));
      has_writer = true;
    } else if (k == "readerFeatures" || k == "writerFeatures") {
      if (x.IsNull()) continue;
      std::vector<std::string> list;
      DELTA_RETURN_IF_ERROR(internal::ReadStringArray(
          ctx,
          k == "readerFeatures" ? "protocol.readerFeatures" : "protocol.writerFeatures",
          x, &list));
      (k == "readerFeatures" ? p.reader_features : p.writer_features) = std::move(list);
    }
  }
  if (!has_reader) return Missing(ctx, "protocol", "minReaderVersion");
  if (!has_writer) return Missing(ctx, "protocol", "minWriterVersion");
  return p;
}

// commitInfo is free-form: fields of unexpected types are ignored, never errors.
Result<CommitInfo> ParseCommitInfo(const JsonContext& ctx, const JsonValue& v,
                                   std::optional<std::string_view> raw) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "commitInfo", v));
  CommitInfo ci;
  ci.raw_json = raw ? std::string(*raw) : internal::JsonToString(v);
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    const JsonValue& x = m.value;
    if (k == "timestamp") {
      if (x.IsInt64()) ci.timestamp = x.GetInt64();
    } else if (k == "inCommitTimestamp") {
      if (x.IsInt64()) ci.in_commit_timestamp = x.GetInt64();
    } else if (k == "operation") {
      if (x.IsString()) ci.operation.emplace(x.GetString(), x.GetStringLength());
    } else if (k == "operationParameters") {
      if (x.IsObject()) ci.operation_parameters_json = internal::JsonToString(x);
    } else if (k == "engineInfo") {
      if (x.IsString()) ci.engine_info.emplace(x.GetString(), x.GetStringLength());
    }
  }
  return ci;
}

Result<SetTransaction> ParseTxn(const JsonContext& ctx, const JsonValue& v) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "txn", v));
  SetTransaction t;
  bool has_app = false, has_version = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    if (k == "appId") {
      DELTA_RETURN_IF_ERROR(internal::ReadString(ctx, "txn.appId", m.value, &t.app_id));
      has_app = true;
    } else if (k == "version") {
      DELTA_RETURN_IF_ERROR(internal::ReadInt64(ctx, "txn.version", m.value, &t.version));
      has_version = true;
    } else if (k == "lastUpdated") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadOptInt64(ctx, "txn.lastUpdated", m.value, &t.last_updated));
    }
  }
  if (!has_app) return Missing(ctx, "txn", "appId");
  if (!has_version) return Missing(ctx, "txn", "version");
  return t;
}

Result<DomainMetadata> ParseDomainMetadata(const JsonContext& ctx, const JsonValue& v) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "domainMetadata", v));
  DomainMetadata d;
  bool has_domain = false, has_conf = false, has_removed = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    if (k == "domain") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadString(ctx, "domainMetadata.domain", m.value, &d.domain));
      has_domain = true;
    } else if (k == "configuration") {
      DELTA_RETURN_IF_ERROR(internal::ReadString(ctx, "domainMetadata.configuration",
                                                 m.value, &d.configuration));
      has_conf = true;
    } else if (k == "removed") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadBool(ctx, "domainMetadata.removed", m.value, &d.removed));
      has_removed = true;
    }
  }
  if (!has_domain) return Missing(ctx, "domainMetadata", "domain");
  if (!has_conf) return Missing(ctx, "domainMetadata", "configuration");
  if (!has_removed) return Missing(ctx, "domainMetadata", "removed");
  return d;
}

Result<CheckpointMetadata> ParseCheckpointMetadata(const JsonContext& ctx,
                                                   const JsonValue& v) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "checkpointMetadata", v));
  CheckpointMetadata c;
  bool has_version = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    if (k == "version") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadInt64(ctx, "checkpointMetadata.version", m.value, &c.version));
      has_version = true;
    } else if (k == "tags") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadStringMap(ctx, "checkpointMetadata.tags", m.value, &c.tags));
    }
  }
  if (!has_version) return Missing(ctx, "checkpointMetadata", "version");
  return c;
}

Result<Sidecar> ParseSidecar(const JsonContext& ctx, const JsonValue& v) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "sidecar", v));
  Sidecar s;
  bool has_path = false, has_size = false, has_mtime = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    if (k == "path") {
      DELTA_RETURN_IF_ERROR(internal::ReadString(ctx, "sidecar.path", m.value, &s.path));
      has_path = true;
    } else if (k == "sizeInBytes") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadInt64(ctx, "sidecar.sizeInBytes", m.value, &s.size_in_bytes));
      has_size = true;
    } else if (k == "modificationTime") {
      DELTA_RETURN_IF_ERROR(internal::ReadInt64(ctx, "sidecar.modificationTime", m.value,
                                                &s.modification_time));
      has_mtime = true;
    } else if (k == "tags") {
      DELTA_RETURN_IF_ERROR(
          internal::ReadStringMap(ctx, "sidecar.tags", m.value, &s.tags));
    }
  }
  if (!has_path) return Missing(ctx, "sidecar", "path");
  if (!has_size) return Missing(ctx, "sidecar", "sizeInBytes");
  if (!has_mtime) return Missing(ctx, "sidecar", "modificationTime");
  return s;
}

Result<AddCdcFile> ParseCdc(const JsonContext& ctx, const JsonValue& v) {
  DELTA_RETURN_IF_ERROR(RequireObject(ctx, "cdc", v));
  AddCdcFile c;
  bool has_path = false, has_pv = false, has_size = false, has_dc = false;
  for (const auto& m : v.GetObject()) {
    std::string_view k = Key(m.name);
    const JsonValue& x = m.value;
    if (k == "path") {
      DELTA_RETURN_IF_ERROR(internal::ReadString(ctx, "cdc.path", x, &c.path));
      has_path = true;
    } else if (k == "partitionValues") {
      DELTA_RETURN_IF_ERROR(internal::ReadPartitionValues(ctx, "cdc.partitionValues", x,
                                                          &c.partition_values));
      has_pv = true;
    } else if (k == "size") {
      DELTA_RETURN_IF_ERROR(internal::ReadInt64(ctx, "cdc.size", x, &c.size));
      has_size = true;
    } else if (k == "dataChange") {
      DELTA_RETURN_IF_ERROR(internal::ReadBool(ctx, "cdc.dataChange", x, &c.data_change));
      has_dc = true;
    } else if (k == "tags") {
      DELTA_RETURN_IF_ERROR(internal::ReadStringMap(ctx, "cdc.tags", x, &c.tags));
    }
  }
  if (!has_path) return Missing(ctx, "cdc", "path");
  if (!has_pv) return Missing(ctx, "cdc", "partitionValues");
  if (!has_size) return Missing(ctx, "cdc", "size");
  if (!has_dc) return Missing(ctx, "cdc", "dataChange");
  return c;
}

template <typename T>
Result<std::optional<Action>> Wrap(Result<T> r) {
  if (!r) return tl::unexpected(std::move(r).error());
  return std::optional<Action>(Action(std::move(r).value()));
}

Result<std::optional<Action>> ParseMember(const JsonContext& ctx, std::string_view name,
                                          const JsonValue& v, std::string_view line,
                                          bool single_member) {
  if (v.IsNull()) return std::optional<Action>();
  switch (name.empty() ? '\0' : name[0]) {
    case 'a':
      if (name == "add") return Wrap(ParseAdd(ctx, v));
      break;
    case 'r':
      if (name == "remove") return Wrap(ParseRemove(ctx, v));
      break;
    case 'm':
      if (name == "metaData") return Wrap(ParseMetadata(ctx, v));
      break;
    case 'p':
      if (name == "protocol") return Wrap(ParseProtocol(ctx, v));
      break;
    case 'c':
      if (name == "commitInfo") {
        std::optional<std::string_view> raw;
        if (single_member) raw = internal::RawSingleMemberValue(line);
        return Wrap(ParseCommitInfo(ctx, v, raw));
      }
      if (name == "cdc") return Wrap(ParseCdc(ctx, v));
      if (name == "checkpointMetadata") return Wrap(ParseCheckpointMetadata(ctx, v));
      break;
    case 't':
      if (name == "txn") return Wrap(ParseTxn(ctx, v));
      break;
    case 'd':
      if (name == "domainMetadata") return Wrap(ParseDomainMetadata(ctx, v));
      break;
    case 's':
      if (name == "sidecar") return Wrap(ParseSidecar(ctx, v));
      break;
    default:
      break;
  }
  return Result<std::optional<Action>>(std::nullopt);  // unknown: caller decides
}

bool IsKnownActionName(std::string_view name) {
  static constexpr std::string_view kNames[] = {"add",
                                                "remove",
                                                "metaData",
                                                "protocol",
                                                "commitInfo",
                                                "cdc",
                                                "checkpointMetadata",
                                                "txn",
                                                "domainMetadata",
                                                "sidecar"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

Result<std::optional<Action>> ParseLineImpl(std::string_view line, std::string_view where,
                                            int64_t line_number) {
  std::string_view text = internal::TrimJsonSpace(line);
  if (text.empty()) return std::optional<Action>();
  JsonContext ctx(where, line_number);
  auto parsed = internal::ThreadJsonDocument().Parse(text);
  if (!parsed) return ctx.Located(parsed.error().message);
  const JsonValue& root = **parsed;
  if (!root.IsObject()) {
    return ctx.Fail("a log line must be a JSON object, found {}",
                    internal::JsonTypeName(root));
  }
  if (root.MemberCount() == 0)
    return ctx.Fail("a log line must hold an action, found {{}}");
  bool single = root.MemberCount() == 1;
  // The first known action wins; other members (future actions) are ignored.
  for (const auto& m : root.GetObject()) {
    std::string_view name = Key(m.name);
    if (!IsKnownActionName(name)) continue;
    return ParseMember(ctx, name, m.value, text, single);
  }
  const auto& first = *root.MemberBegin();
  UnknownAction u;
  u.name = std::string(Key(first.name));
  std::optional<std::string_view> raw;
  if (single) raw = internal::RawSingleMemberValue(text);
  u.raw_json = raw ? std::string(*raw) : internal::JsonToString(first.value);
  return std::optional<Action>(std::move(u));
}

}  // namespace

Result<std::optional<Action>> ParseActionLine(std::string_view line,
                                              std::string_view where,
                                              int64_t line_number) {
  return ParseLineImpl(line, where, line_number);
}

Result<std::vector<Action>> ParseCommitFile(std::string_view content,
                                            std::string_view where) {
  std::vector<Action> out;
  out.reserve(static_cast<size_t>(std::count(content.begin(), content.end(), '\n')) + 1);
  int64_t line_number = 0;
  size_t pos = 0;
  while (pos < content.size()) {
    size_t nl = content.find('\n', pos);
    size_t end = nl == std::string_view::npos ? content.size() : nl;
    ++line_number;
    DELTA_ASSIGN_OR_RETURN(
        std::optional<Action> action,
        ParseLineImpl(content.substr(pos, end - pos), where, line_number));
    if (action) out.push_back(std::move(*action));
    pos = end + 1;
  }
  return out;
}

RemoveFile RemoveFileFor(const AddFile& add, int64_t deletion_timestamp) {
  RemoveFile remove;
  remove.path = add.path;
  remove.deletion_timestamp = deletion_timestamp;
  remove.data_change = true;
  remove.extended_file_metadata = true;
  remove.partition_values = add.partition_values;
  remove.size = add.size;
  remove.stats = add.stats;
  remove.tags = add.tags;
  remove.deletion_vector = add.deletion_vector;
  remove.base_row_id = add.base_row_id;
  remove.default_row_commit_version = add.default_row_commit_version;
  return remove;
}

}  // namespace deltaguard

// Serialization of actions to single-line JSON in Spark's field names and order
// (delta-spark actions.scala case classes; absent optionals are omitted as Jackson's
// NON_ABSENT inclusion does).

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "deltaguard/log/actions.h"

namespace deltaguard {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

class ActionWriter {
 public:
  ActionWriter() : writer_(buffer_) {}

  void Key(std::string_view k) {
    writer_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
  }
  void Str(std::string_view s) {
    writer_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  }
  void Field(std::string_view k, std::string_view v) {
    Key(k);
    Str(v);
  }
  void Field(std::string_view k, int64_t v) {
    Key(k);
    writer_.Int64(v);
  }
  void BoolField(std::string_view k, bool v) {
    Key(k);
    writer_.Bool(v);
  }
  void OptField(std::string_view k, const std::optional<std::string>& v) {
    if (v) Field(k, *v);
  }
  void OptField(std::string_view k, const std::optional<int64_t>& v) {
    if (v) Field(k, *v);
  }
  void Map(std::string_view k, const StringMap& m) {
    Key(k);
    writer_.StartObject();
    for (const auto& [key, value] : m) Field(key, value);
    writer_.EndObject();
  }
  void OptMap(std::string_view k, const StringMap& m) {
    if (!m.empty()) Map(k, m);
  }
  void Partitions(std::string_view k, const PartitionValues& pv) {
    Key(k);
    writer_.StartObject();
    for (const auto& [key, value] : pv) {
      Key(key);
      if (value) {
        Str(*value);
      } else {
        writer_.Null();
      }
    }
    writer_.EndObject();
  }
  void Array(std::string_view k, const std::vector<std::string>& items) {
    Key(k);
    writer_.StartArray();
    for (const auto& s : items) Str(s);
    writer_.EndArray();
  }
  void Dv(const std::optional<DeletionVectorDescriptor>& dv) {
    if (!dv) return;
    Key("deletionVector");
    writer_.StartObject();
    Field("storageType", std::string_view(&dv->storage_type, 1));
    Field("pathOrInlineDv", dv->path_or_inline_dv);
    if (dv->offset) Field("offset", static_cast<int64_t>(*dv->offset));
    Field("sizeInBytes", static_cast<int64_t>(dv->size_in_bytes));
    Field("cardinality", dv->cardinality);
    OptField("maxRowIndex", dv->max_row_index);
    writer_.EndObject();
  }
  void StartObject(std::string_view k) {
    Key(k);
    writer_.StartObject();
  }
  void EndObject() { writer_.EndObject(); }
  /// Write pre-serialized JSON as the next value.
  void Raw(std::string_view json) {
    writer_.RawValue(json.data(), json.size(), rapidjson::kObjectType);
  }
  void Begin(std::string_view action) {
    writer_.StartObject();
    Key(action);
    writer_.StartObject();
  }
  std::string End() {
    writer_.EndObject();
    writer_.EndObject();
    return std::string(buffer_.GetString(), buffer_.GetSize());
  }

 private:
  rapidjson::StringBuffer buffer_;
  JsonWriter writer_;
};

// `{"<name>":<raw>}` with the name escaped (unknown action names can be anything).
std::string WrapRaw(std::string_view name, std::string_view raw) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
  std::string_view value = raw.empty() ? std::string_view("{}") : raw;
  writer.RawValue(value.data(), value.size(), rapidjson::kObjectType);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string ToJson(const AddFile& a) {
  ActionWriter w;
  w.Begin("add");
  w.Field("path", a.path);
  w.Partitions("partitionValues", a.partition_values);
  w.Field("size", a.size);
  w.Field("modificationTime", a.modification_time);
  w.BoolField("dataChange", a.data_change);
  w.OptField("stats", a.stats);
  w.OptMap("tags", a.tags);
  w.Dv(a.deletion_vector);
  w.OptField("baseRowId", a.base_row_id);
  w.OptField("defaultRowCommitVersion", a.default_row_commit_version);
  w.OptField("clusteringProvider", a.clustering_provider);
  return w.End();
}

std::string ToJson(const RemoveFile& r) {
  ActionWriter w;
  w.Begin("remove");
  w.Field("path", r.path);
  w.OptField("deletionTimestamp", r.deletion_timestamp);
  w.BoolField("dataChange", r.data_change);
  if (r.extended_file_metadata)
    w.BoolField("extendedFileMetadata", *r.extended_file_metadata);
  if (r.partition_values) w.Partitions("partitionValues", *r.partition_values);
  w.OptField("size", r.size);
  w.OptMap("tags", r.tags);
  w.Dv(r.deletion_vector);
  w.OptField("baseRowId", r.base_row_id);
  w.OptField("defaultRowCommitVersion", r.default_row_commit_version);
  w.OptField("stats", r.stats);
  return w.End();
}

std::string ToJson(const Metadata& m) {
  ActionWriter w;
  w.Begin("metaData");
  w.Field("id", m.id);
  w.OptField("name", m.name);
  w.OptField("description", m.description);
  w.StartObject("format");
  w.Field("provider", m.format.provider);
  w.Map("options", m.format.options);
  w.EndObject();
  w.Field("schemaString", m.schema_string);
  w.Array("partitionColumns", m.partition_columns);
  w.Map("configuration", m.configuration);
  w.OptField("createdTime", m.created_time);
  return w.End();
}

std::string ToJson(const Protocol& p) {
  ActionWriter w;
  w.Begin("protocol");
  w.Field("minReaderVersion", static_cast<int64_t>(p.min_reader_version));
  w.Field("minWriterVersion", static_cast<int64_t>(p.min_writer_version));
  if (p.reader_features) w.Array("readerFeatures", *p.reader_features);
  if (p.writer_features) w.Array("writerFeatures", *p.writer_features);
  return w.End();
}

std::string ToJson(const CommitInfo& c) {
  if (!c.raw_json.empty()) return WrapRaw("commitInfo", c.raw_json);
  ActionWriter w;
  w.Begin("commitInfo");
  w.OptField("inCommitTimestamp", c.in_commit_timestamp);
  w.OptField("timestamp", c.timestamp);
  w.OptField("operation", c.operation);
  if (c.operation_parameters_json) {
    w.Key("operationParameters");
    w.Raw(*c.operation_parameters_json);
  }
  w.OptField("engineInfo", c.engine_info);
  return w.End();
}

std::string ToJson(const SetTransaction& t) {
  ActionWriter w;
  w.Begin("txn");
  w.Field("appId", t.app_id);
  w.Field("version", t.version);
  w.OptField("lastUpdated", t.last_updated);
  return w.End();
}

std::string ToJson(const DomainMetadata& d) {
  ActionWriter w;
  w.Begin("domainMetadata");
  w.Field("domain", d.domain);
  w.Field("configuration", d.configuration);
  w.BoolField("removed", d.removed);
  return w.End();
}

std::string ToJson(const CheckpointMetadata& c) {
  ActionWriter w;
  w.Begin("checkpointMetadata");
  w.Field("version", c.version);
  w.OptMap("tags", c.tags);
  return w.End();
}

std::string ToJson(const Sidecar& s) {
  ActionWriter w;
  w.Begin("sidecar");
  w.Field("path", s.path);
  w.Field("sizeInBytes", s.size_in_bytes);
  w.Field("modificationTime", s.modification_time);
  w.OptMap("tags", s.tags);
  return w.End();
}

std::string ToJson(const AddCdcFile& c) {
  ActionWriter w;
  w.Begin("cdc");
  w.Field("path", c.path);
  w.Partitions("partitionValues", c.partition_values);
  w.Field("size", c.size);
  w.BoolField("dataChange", c.data_change);
  w.OptMap("tags", c.tags);
  return w.End();
}

std::string ToJson(const UnknownAction& u) { return WrapRaw(u.name, u.raw_json); }

struct NameVisitor {
  std::string_view operator()(const AddFile&) const { return "add"; }
  std::string_view operator()(const RemoveFile&) const { return "remove"; }
  std::string_view operator()(const Metadata&) const { return "metaData"; }
  std::string_view operator()(const Protocol&) const { return "protocol"; }
  std::string_view operator()(const CommitInfo&) const { return "commitInfo"; }
  std::string_view operator()(const SetTransaction&) const { return "txn"; }
  std::string_view operator()(const DomainMetadata&) const { return "domainMetadata"; }
  std::string_view operator()(const CheckpointMetadata&) const {
    return "checkpointMetadata";
  }
  std::string_view operator()(const Sidecar&) const { return "sidecar"; }
  std::string_view operator()(const AddCdcFile&) const { return "cdc"; }
  std::string_view operator()(const UnknownAction& u) const { return u.name; }
};

}  // namespace

std::string ActionToJson(const Action& action) {
  return std::visit([](const auto& a) { return ToJson(a); }, action);
}

std::string_view ActionName(const Action& action) {
  return std::visit(NameVisitor{}, action);
}

}  // namespace deltaguard

// delta_log('table' [, version]): one row per action of a commit, with a short
// deterministic summary (file names, UUIDs and timestamps masked), so golden tests can
// assert what a statement wrote to the log.

#include <arrow/api.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/log/add_stats.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/table/table.h"
#include "deltaguard/util/json_bounded.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

// "country=US/part-00000-<uuid>.c000.snappy.parquet" ->
// "country=US/part-<masked>.parquet". Absolute paths (files outside the table) lose their
// directory too.
std::string MaskFilePath(const std::string& logged) {
  size_t slash = logged.rfind('/');
  std::string dir = slash == std::string::npos ? "" : logged.substr(0, slash + 1);
  std::string file = slash == std::string::npos ? logged : logged.substr(slash + 1);
  if (!dir.empty() && (dir[0] == '/' || dir.find(':') != std::string::npos)) dir.clear();
  std::string prefix = file.starts_with("part-") ? "part-" : "";
  size_t dot = file.rfind('.');
  std::string ext = dot == std::string::npos ? "" : file.substr(dot);
  return dir + prefix + "<masked>" + ext;
}

std::string JsonValueText(const rapidjson::Value& v) {
  if (v.IsString()) return std::string(v.GetString(), v.GetStringLength());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return buffer.GetString();
}

std::string CommitInfoSummary(const CommitInfo& info) {
  std::string out = info.operation.value_or("UNKNOWN");
  if (!info.operation_parameters_json) return out;
  rapidjson::Document doc;
  if (ParseBoundedJson(*info.operation_parameters_json, &doc) != JsonParseOutcome::kOk ||
      !doc.IsObject()) {
    return out;
  }
  for (const auto& m : doc.GetObject()) {
    if (m.value.IsNull()) continue;
    std::string value = JsonValueText(m.value);
    if (value.empty() || value == "[]" || value == "{}") continue;
    out += fmt::format(" {}={}", m.name.GetString(), value);
  }
  return out;
}

std::string FileSummary(std::string_view kind, const std::string& path,
                        const std::optional<std::string>& stats,
                        const std::optional<DeletionVectorDescriptor>& dv,
                        bool data_change) {
  std::string out = fmt::format("{} {}", kind, MaskFilePath(path));
  if (stats) {
    auto parsed = ParseAddStats(*stats);
    if (parsed && parsed->num_records)
      out += fmt::format(" rows={}", *parsed->num_records);
  }
  if (dv) out += fmt::format(" dv={}", dv->cardinality);
  if (!data_change) out += " dataChange=false";
  return out;
}

std::string MetadataSummary(const Metadata& metadata) {
  std::string out;
  auto schema = ParseSchemaJson(metadata.schema_string);
  if (!schema) {
    out = "schema unreadable";
  } else {
    for (const auto& f : (*schema)->fields()) {
      if (!out.empty()) out += ", ";
      out += QuoteIdentifier(f.name) + " " + TypeToSql(*f.type);
      if (!f.nullable) out += " NOT NULL";
    }
  }
  if (!metadata.partition_columns.empty()) {
    out +=
        fmt::format(" PARTITIONED BY ({})", fmt::join(metadata.partition_columns, ", "));
  }
  if (!metadata.configuration.empty()) {
    std::vector<std::string> props;
    for (const auto& [k, v] : metadata.configuration) props.push_back(k + "=" + v);
    out += fmt::format(" TBLPROPERTIES ({})", fmt::join(props, ", "));
  }
  return out;
}

std::string ProtocolSummary(const Protocol& p) {
  std::string out =
      fmt::format("reader={} writer={}", p.min_reader_version, p.min_writer_version);
  std::vector<std::string> features;
  auto add = [&](const std::optional<std::vector<std::string>>& list) {
    if (!list) return;
    for (const auto& f : *list) {
      if (std::find(features.begin(), features.end(), f) == features.end()) {
        features.push_back(f);
      }
    }
  };
  add(p.writer_features);
  add(p.reader_features);
  if (p.writer_features || p.reader_features) {
    out += fmt::format(" features=[{}]", fmt::join(features, ", "));
  }
  return out;
}

std::string Summarize(const Action& action) {
  if (const auto* a = std::get_if<AddFile>(&action)) {
    return FileSummary("add", a->path, a->stats, a->deletion_vector, a->data_change);
  }
  if (const auto* r = std::get_if<RemoveFile>(&action)) {
    return FileSummary("remove", r->path, r->stats, r->deletion_vector, r->data_change);
  }
  if (const auto* c = std::get_if<CommitInfo>(&action)) return CommitInfoSummary(*c);
  if (const auto* m = std::get_if<Metadata>(&action)) return MetadataSummary(*m);
  if (const auto* p = std::get_if<Protocol>(&action)) return ProtocolSummary(*p);
  if (const auto* t = std::get_if<SetTransaction>(&action)) {
    return fmt::format("app={} version={}", t->app_id, t->version);
  }
  if (const auto* d = std::get_if<DomainMetadata>(&action)) {
    return fmt::format("domain={}{}", d->domain, d->removed ? " removed" : "");
  }
  if (const auto* cdc = std::get_if<AddCdcFile>(&action)) {
    return "cdc " + MaskFilePath(cdc->path);
  }
  if (const auto* u = std::get_if<UnknownAction>(&action)) return u->name;
  return std::string(ActionName(action));
}

// 'silver.orders', 'orders', '/data/orders' or 'delta.`/data/orders`'.
TableRef ParseTableRefText(const std::string& text) {
  TableRef ref;
  if (text.starts_with("delta.`") && text.ends_with("`") && text.size() > 8) {
    ref.kind = TableRef::Kind::kPath;
    ref.path = text.substr(7, text.size() - 8);
  } else if (text.find('/') != std::string::npos) {
    ref.kind = TableRef::Kind::kPath;
    ref.path = text;
  } else {
    for (auto part : Split(text, '.')) ref.parts.emplace_back(part);
  }
  return ref;
}

}  // namespace

Result<FunctionTable> ResolveFunctionTable(std::string_view function, const Expr& arg,
                                           const QueryContext& context) {
  DELTA_ASSIGN_OR_RETURN(auto table_arg, EvaluateConstant(arg, context));
  if (table_arg->type_id() != arrow::Type::STRING || table_arg->IsNull(0)) {
    return MakeError(ErrorCode::kInvalidArgument, "{}() table must be a string, got {}",
                     function, SparkColumnName(arg));
  }
  FunctionTable out;
  out.text = std::string(static_cast<const arrow::StringArray&>(*table_arg).GetView(0));
  TableRef ref = ParseTableRefText(out.text);
  if (context.catalog != nullptr) {
    DELTA_ASSIGN_OR_RETURN(ResolvedTable t,
                           context.catalog->Resolve(ref, context.current_database));
    if (!t.exists) {
      return MakeError(ErrorCode::kNotFound, "{}(): table '{}' does not exist at '{}'",
                       function, out.text, t.path);
    }
    out.root = t.path;
  } else if (ref.kind == TableRef::Kind::kPath) {
    DELTA_ASSIGN_OR_RETURN(out.root, NormalizeTablePath(ref.path));
  } else {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}(): table name '{}' needs a warehouse catalog", function,
                     out.text);
  }
  return out;
}

Result<SourcePlan> PlanDeltaLog(const FromClause& from, const QueryContext& context) {
  if (from.args.empty() || from.args.size() > 2 || !from.named_args.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "delta_log() takes a table name or path and an optional version");
  }
  DELTA_ASSIGN_OR_RETURN(FunctionTable table,
                         ResolveFunctionTable("delta_log", *from.args[0], context));
  const std::string& text = table.text;
  const std::string& root = table.root;
  std::optional<int64_t> version;
  if (from.args.size() == 2) {
    DELTA_ASSIGN_OR_RETURN(auto v, EvaluateConstant(*from.args[1], context));
    if (v->type_id() != arrow::Type::INT32 && v->type_id() != arrow::Type::INT64) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "delta_log() version must be an integer, got {}",
                       SparkColumnName(*from.args[1]));
    }
    if (v->IsNull(0)) {
      return MakeError(ErrorCode::kInvalidArgument, "delta_log() version is NULL");
    }
    version = v->type_id() == arrow::Type::INT32
                  ? static_cast<const arrow::Int32Array&>(*v).Value(0)
                  : static_cast<const arrow::Int64Array&>(*v).Value(0);
  }
  FileSystemRef fs = context.fs != nullptr ? context.fs : MakeLocalFileSystem();
  std::vector<int64_t> versions;
  if (version) {
    versions.push_back(*version);
  } else {
    auto listed = ListCommitVersions(*fs, root);
    if (!listed) return WithContext(listed.error(), "delta_log('" + text + "')");
    versions = std::move(*listed);
  }
  arrow::Int64Builder version_col;
  arrow::StringBuilder action_col;
  arrow::StringBuilder summary_col;
  for (int64_t v : versions) {
    auto actions = ReadCommit(*fs, root, v);
    if (!actions) {
      return WithContext(actions.error(), fmt::format("delta_log('{}', {})", text, v));
    }
    for (const auto& action : *actions) {
      DELTA_ARROW_RETURN_NOT_OK(version_col.Append(v), ErrorCode::kInternal, "delta_log");
      DELTA_ARROW_RETURN_NOT_OK(action_col.Append(std::string(ActionName(action))),
                                ErrorCode::kInternal, "delta_log");
      DELTA_ARROW_RETURN_NOT_OK(summary_col.Append(Summarize(action)),
                                ErrorCode::kInternal, "delta_log");
    }
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(3);
  DELTA_ARROW_RETURN_NOT_OK(version_col.Finish(&columns[0]), ErrorCode::kInternal,
                            "delta_log");
  DELTA_ARROW_RETURN_NOT_OK(action_col.Finish(&columns[1]), ErrorCode::kInternal,
                            "delta_log");
  DELTA_ARROW_RETURN_NOT_OK(summary_col.Finish(&columns[2]), ErrorCode::kInternal,
                            "delta_log");
  auto arrow_schema = arrow::schema({arrow::field("version", arrow::int64(), false),
                                     arrow::field("action", arrow::utf8(), false),
                                     arrow::field("summary", arrow::utf8(), false)});
  auto batch = arrow::RecordBatch::Make(arrow_schema, columns[0]->length(), columns);
  SourcePlan src;
  src.schema = std::make_shared<StructType>(
      std::vector<StructField>{{"version", DataType::Long(), false, {}},
                               {"action", DataType::String(), false, {}},
                               {"summary", DataType::String(), false, {}}});
  src.name = fmt::format("delta_log('{}')", text);
  if (!from.alias.empty()) src.qualifiers = {AsciiToLower(from.alias)};
  src.open = [batch](const std::vector<std::string>&) -> Result<ReaderRef> {
    DELTA_ARROW_ASSIGN_OR_RETURN(ReaderRef reader,
                                 arrow::RecordBatchReader::Make({batch}, batch->schema()),
                                 ErrorCode::kInternal, "delta_log");
    return reader;
  };
  return src;
}

}  // namespace deltaguard::query_internal

// Schema inference and evolution of the ingest schema (ingest/infer.h).

#include "deltaguard/ingest/infer.h"

#include <fmt/format.h>

#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/ingest/csv_fields.h"
#include "deltaguard/ingest/json_tokens.h"
#include "deltaguard/ingest/lines.h"
#include "deltaguard/ingest/parquet_reader.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

Status SampleJson(const FileSystem& fs, const IngestFile& file, const ValueAppender& v,
                  bool multi_line, DataTypeRef* merged) {
  JsonRecord record;
  if (multi_line) {
    DELTA_ASSIGN_OR_RETURN(std::string text, fs.ReadFile(file.path));
    if (!IsValidUtf8(text)) text = ReplaceInvalidUtf8(text);
    std::vector<uint32_t> elements;
    if (record.ParseDocument(&text, kMaxInputJsonDepth, &elements)) {
      return OkStatus();  // malformed: not sampled
    }
    for (uint32_t c : elements) {
      if (record.tokens()[c].kind == JsonTokenKind::kObject) {
        *merged = MergeInferredTypes(*merged, v.InferJson(record, c));
      }
    }
    return OkStatus();
  }
  LineSource lines(&fs, file);
  std::string line;
  while (true) {
    DELTA_ASSIGN_OR_RETURN(bool more, lines.Next(&line));
    if (!more) break;
    if (Trim(line).empty()) continue;
    if (record.Parse(&line, kMaxInputJsonDepth)) continue;  // malformed: not sampled
    *merged = MergeInferredTypes(*merged, v.InferJson(record, 0));
  }
  return OkStatus();
}

Status SampleCsv(const FileSystem& fs, const IngestFile& file, const IngestOptions& o,
                 const ValueAppender& v, std::vector<std::string>* names,
                 std::vector<DataTypeRef>* types) {
  LineSource lines(&fs, file);
  std::string line;
  std::vector<std::string> fields;
  std::vector<int> columns;  // this file's columns -> names
  bool first = true;
  while (true) {
    DELTA_ASSIGN_OR_RETURN(bool more, lines.Next(&line));
    if (!more) break;
    std::string record = line;
    DELTA_RETURN_IF_ERROR(
        JoinCsvLines(&lines, o.delimiter, o.quote, o.escape, o.multi_line, &record));
    if (SplitCsvRecord(record, o.delimiter, o.quote, o.escape, &fields)) continue;
    if (first) {
      first = false;
      for (size_t i = 0; i < fields.size(); ++i) {
        const std::string name = o.header ? fields[i] : fmt::format("_c{}", i);
        int at = -1;
        for (size_t k = 0; k < names->size(); ++k) {
          if (EqualsIgnoreCase((*names)[k], name)) at = static_cast<int>(k);
        }
        if (at < 0) {
          names->push_back(name);
          types->push_back(DataType::Void());
          at = static_cast<int>(names->size()) - 1;
        }
        columns.push_back(at);
      }
      if (o.header) continue;
    }
    if (fields.size() != columns.size()) continue;  // malformed: not sampled
    for (size_t i = 0; i < fields.size(); ++i) {
      auto& t = (*types)[static_cast<size_t>(columns[i])];
      t = MergeInferredTypes(t, v.InferText(fields[i]));
    }
  }
  return OkStatus();
}

// `type` with the field at `path` (from `depth`) added, or its type replaced when
// `replace`; `changed` says whether anything was.
DataTypeRef AddNested(const DataTypeRef& type, const std::vector<std::string>& path,
                      size_t depth, const DataTypeRef& leaf, bool* changed,
                      bool replace = false) {
  if (type->kind() == TypeKind::kArray) {
    const auto& a = static_cast<const ArrayType&>(*type);
    return std::make_shared<ArrayType>(
        AddNested(a.element_type(), path, depth, leaf, changed, replace),
        a.contains_null());
  }
  if (type->kind() != TypeKind::kStruct) return type;
  std::vector<StructField> fields = static_cast<const StructType&>(*type).fields();
  for (auto& f : fields) {
    if (!EqualsIgnoreCase(f.name, path[depth])) continue;
    if (depth + 1 < path.size()) {
      f.type = AddNested(f.type, path, depth + 1, leaf, changed, replace);
    } else if (replace) {
      f.type = leaf;
      *changed = true;
    }
    return std::make_shared<StructType>(std::move(fields));
  }
  if (depth + 1 == path.size()) {
    fields.push_back(StructField{path[depth], ResolveVoid(leaf), true, {}});
    *changed = true;
  }
  return std::make_shared<StructType>(std::move(fields));
}

}  // namespace

Result<SchemaRef> InferIngestSchema(const FileSystemRef& fs_ref,
                                    const std::vector<IngestFile>& files,
                                    const IngestOptions& options) {
  const FileSystem& fs = *fs_ref;
  ValueAppender v(IngestValueOptions(options));
  int64_t taken = 0, bytes = 0;
  DataTypeRef merged = std::make_shared<StructType>(std::vector<StructField>{});
  std::vector<std::string> csv_names;
  std::vector<DataTypeRef> csv_types;
  std::vector<std::string> partitions;
  for (const auto& f : files) {
    if (taken >= options.sample_files || bytes >= options.sample_bytes) break;
    ++taken;
    bytes += f.size;
    Status st = OkStatus();
    if (options.format == IngestFormat::kJson) {
      st = SampleJson(fs, f, v, options.multi_line, &merged);
    } else if (options.format == IngestFormat::kCsv) {
      st = SampleCsv(fs, f, options, v, &csv_names, &csv_types);
    } else if (options.format == IngestFormat::kParquet) {
      // Typed: the footer's schema, merged over the sample (no data is read).
      auto schema = ParquetFileSchema(fs_ref, f);
      if (schema) {
        merged = MergeInferredTypes(merged, *schema);
      } else {
        st = schema.error();
      }
    }
    if (!st) return WithContext(st.error(), fmt::format("inferring from {}", f.path));
    for (const auto& [k, val] : f.partition_values) {
      bool known = false;
      for (const auto& p : partitions) known = known || EqualsIgnoreCase(p, k);
      if (!known) partitions.push_back(k);
    }
  }
  if (taken == 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "there are no files to infer the schema from; add data to the "
                     "source or give the schema (--schema, or the option schema)");
  }
  std::vector<StructField> fields;
  if (options.format == IngestFormat::kText) {
    fields.push_back({"value", DataType::String(), true, {}});
  } else if (options.format == IngestFormat::kCsv) {
    for (size_t i = 0; i < csv_names.size(); ++i) {
      fields.push_back({csv_names[i], ResolveVoid(csv_types[i]), true, {}});
    }
  } else {
    for (const auto& f : static_cast<const StructType&>(*merged).fields()) {
      fields.push_back({f.name, ResolveVoid(f.type), true, {}});
    }
  }
  for (const auto& name : options.partition_columns) {
    bool present = false;
    for (const auto& p : partitions) present = present || EqualsIgnoreCase(p, name);
    if (!present) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cloudFiles.partitionColumns names '{}', but no sampled file is "
                       "under a '{}=...' directory",
                       name, name);
    }
    bool clash = false;
    for (const auto& f : fields) clash = clash || EqualsIgnoreCase(f.name, name);
    if (!clash) fields.push_back({name, DataType::String(), true, {}});
  }
  SchemaRef schema = std::make_shared<const StructType>(std::move(fields));
  if (!options.schema_hints.empty()) {
    DELTA_ASSIGN_OR_RETURN(schema, ApplySchemaHints(schema, options.schema_hints));
  }
  return schema;
}

Result<SchemaRef> GivenIngestSchema(const IngestOptions& options) {
  auto parsed = ParseDdlSchema(options.schema);
  if (!parsed) return WithContext(parsed.error(), "option schema");
  if (options.schema_hints.empty()) return *parsed;
  return ApplySchemaHints(*parsed, options.schema_hints);
}

Result<SchemaRef> ApplySchemaHints(const SchemaRef& schema, const std::string& hints) {
  DELTA_ASSIGN_OR_RETURN(auto parsed, ParseSchemaHints(hints));
  std::vector<StructField> fields = schema->fields();
  for (const auto& h : parsed) {
    bool done = false;
    for (auto& f : fields) {
      if (!EqualsIgnoreCase(f.name, h.path[0])) continue;
      done = true;
      if (h.path.size() == 1) {
        f.type = h.type;
      } else {
        bool changed = false;
        f.type = AddNested(f.type, h.path, 1, h.type, &changed, true);
      }
    }
    if (!done && h.path.size() == 1)
      fields.push_back(StructField{h.path[0], h.type, true, {}});
  }
  return std::make_shared<const StructType>(std::move(fields));
}

SchemaRef EvolveIngestSchema(const SchemaRef& schema,
                             const std::vector<UnknownField>& fields,
                             std::vector<std::string>* added,
                             std::vector<std::string>* widened) {
  std::vector<StructField> top = schema->fields();
  for (const auto& u : fields) {
    if (u.path.empty()) continue;
    if (u.mismatch) {
      if (u.path.size() != 1) continue;  // nested types are not widened here
      for (auto& f : top) {
        if (!EqualsIgnoreCase(f.name, u.path[0])) continue;
        DataTypeRef to = ResolveVoid(u.type);
        // A value of a narrower type than the column is no widening (it was rescued
        // for another reason, e.g. a string in a number column).
        if (!to->Equals(*f.type) && IsTypeWideningSupported(*f.type, *to)) {
          widened->push_back(
              fmt::format("{}: {} -> {}", f.name, f.type->ToString(), to->ToString()));
          f.type = to;
        }
      }
      continue;
    }
    bool found = false;
    for (auto& f : top) {
      if (!EqualsIgnoreCase(f.name, u.path[0])) continue;
      found = true;
      if (u.path.size() > 1) {
        bool changed = false;
        f.type = AddNested(f.type, u.path, 1, u.type, &changed);
        if (changed) added->push_back(FormatColumnPath(u.path));
      }
    }
    if (!found && u.path.size() == 1) {
      top.push_back(StructField{u.path[0], ResolveVoid(u.type), true, {}});
      added->push_back(u.path[0]);
    }
  }
  return std::make_shared<const StructType>(std::move(top));
}

}  // namespace deltaguard

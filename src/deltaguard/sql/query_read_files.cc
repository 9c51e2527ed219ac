// read_files('path', format => 'json', schemaHints => '...', ...): files read as the
// ingestion reads them (ingest/reader.h), as a batch source anywhere a table can stand
// (docs/ingest.md "SQL"): the schema inferred over the files (or given), fields that
// do not fit kept in `_rescued_data`, malformed records by `mode`.

#include <arrow/api.h>
#include <fmt/format.h>

#include <algorithm>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/ingest/infer.h"
#include "deltaguard/ingest/listing.h"
#include "deltaguard/ingest/reader.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {
namespace {

// Databricks' read_files names some options without the `cloudFiles.` prefix.
std::string OptionKey(const std::string& name) {
  for (const char* k : {"format", "schemaHints", "inferColumnTypes", "partitionColumns",
                        "schemaEvolutionMode"}) {
    if (EqualsIgnoreCase(name, k)) return std::string("cloudFiles.") + k;
  }
  return name;
}

// A constant argument as option text: strings as they are, booleans and numbers as
// Spark prints them.
Result<std::string> OptionValue(const std::string& name, const Expr& arg,
                                const QueryContext& context) {
  DELTA_ASSIGN_OR_RETURN(auto v, EvaluateConstant(arg, context));
  if (v->IsNull(0)) {
    return MakeError(ErrorCode::kInvalidArgument, "read_files() argument {} is NULL",
                     name);
  }
  if (v->type_id() == arrow::Type::STRING) {
    return std::string(static_cast<const arrow::StringArray&>(*v).GetView(0));
  }
  if (v->type_id() == arrow::Type::BOOL) {
    return std::string(static_cast<const arrow::BooleanArray&>(*v).Value(0) ? "true"
                                                                            : "false");
  }
  DELTA_ASSIGN_OR_RETURN(auto scalar, [&]() -> Result<std::shared_ptr<arrow::Scalar>> {
    auto s = v->GetScalar(0);
    if (!s.ok()) return MakeError(ErrorCode::kInternal, "{}", s.status().ToString());
    return *s;
  }());
  return scalar->ToString();
}

// The files `path` names: a directory (recursively), a file, or a glob in the last
// component.
Result<std::vector<IngestFile>> Files(const FileSystem& fs, const std::string& path,
                                      const std::string& glob) {
  const auto star = path.find_first_of("*?[{");
  if (star != std::string::npos) {
    const auto slash = path.find_last_of('/', star);
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    const std::string pattern = path.substr(slash == std::string::npos ? 0 : slash + 1);
    if (pattern.find('/') != std::string::npos) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "read_files('{}'): a glob may only be in the last part of the path", path);
    }
    DELTA_ASSIGN_OR_RETURN(auto files, ListSourceFiles(fs, dir, pattern));
    std::vector<IngestFile> direct;
    for (auto& f : files) {
      if (f.path.find('/', dir.size() + 1) == std::string::npos) direct.push_back(f);
    }
    return direct;
  }
  auto info = fs.Stat(path);
  auto listed = ListSourceFiles(fs, path, glob);
  if (listed) return listed;
  if (info)
    return std::vector<IngestFile>{{path, info->size, info->modification_time, {}}};
  return listed.error();
}

}  // namespace

Result<ReadFilesArgs> ReadFilesArguments(const FromClause& from,
                                         const QueryContext& context) {
  if (from.args.size() != 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "read_files() takes one path (a directory, file or glob) and named "
                     "options, got {} arguments",
                     from.args.size());
  }
  ReadFilesArgs out;
  DELTA_ASSIGN_OR_RETURN(out.path, OptionValue("path", *from.args[0], context));
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& [name, expr] : from.named_args) {
    DELTA_ASSIGN_OR_RETURN(std::string value, OptionValue(name, *expr, context));
    if (EqualsIgnoreCase(name, "checkpointLocation")) {
      out.checkpoint = std::move(value);
      continue;
    }
    pairs.emplace_back(OptionKey(name), std::move(value));
  }
  auto options = ParseIngestOptions(pairs);
  if (!options) return WithContext(options.error(), "read_files()");
  out.options = std::move(*options);
  return out;
}

Result<SourcePlan> PlanStreamSource(const FromClause& from, const QueryContext& context) {
  if (from.kind != FromClause::Kind::kFunction || from.function != "read_files") {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "STREAM {}: only read_files() is a streaming source (streaming "
                     "from a Delta table is not supported yet)",
                     from.kind == FromClause::Kind::kFunction ? from.function + "()"
                                                              : from.table.ToString());
  }
  if (context.stream_batch == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "STREAM read_files(...) is a streaming source: it is read by "
                     "INSERT INTO table SELECT ... FROM STREAM read_files(...), which "
                     "loads the new files incrementally with a checkpoint "
                     "(docs/ingest.md \"SQL\"); for a one-off read, drop STREAM");
  }
  SourcePlan src;
  src.schema = context.stream_batch->schema;
  src.name = "STREAM read_files()";
  if (!from.alias.empty()) src.qualifiers = {AsciiToLower(from.alias)};
  src.open = [open = context.stream_batch->open](const std::vector<std::string>&) {
    return open();
  };
  return src;
}

Result<SourcePlan> PlanReadFiles(const FromClause& from, const QueryContext& context) {
  DELTA_ASSIGN_OR_RETURN(ReadFilesArgs args, ReadFilesArguments(from, context));
  if (!args.checkpoint.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "read_files(): checkpointLocation is for a streaming INSERT (INSERT "
                     "INTO table SELECT ... FROM STREAM read_files(...)); a batch read "
                     "keeps no checkpoint");
  }
  const std::string& path = args.path;
  auto options = &args.options;
  FileSystemRef fs = context.fs ? context.fs : MakeLocalFileSystem();
  DELTA_ASSIGN_OR_RETURN(auto files, Files(*fs, path, options->path_glob_filter));
  const std::string display = fmt::format("read_files('{}')", path);
  if (files.empty()) {
    return MakeError(ErrorCode::kNotFound, "{}: no files", display);
  }
  ReadSpec spec;
  spec.options = *options;
  if (!options->schema.empty()) {
    DELTA_ASSIGN_OR_RETURN(spec.data_schema, GivenIngestSchema(*options));
  } else {
    auto inferred = InferIngestSchema(fs, files, *options);
    if (!inferred) return WithContext(inferred.error(), display);
    spec.data_schema = *inferred;
  }
  spec.ingested_at_micros = context.now_micros;
  // Spark's hidden `_metadata` column (file_path, file_name, file_size,
  // file_modification_time): in the schema for queries that name it (and
  // input_file_name()), left out of `*`, read only when a query needs it.
  ReadSpec plain = spec;
  const auto& requested = spec.options.metadata_columns;
  const bool hidden =
      std::find(requested.begin(), requested.end(), "_metadata") == requested.end();
  if (hidden) spec.options.metadata_columns.push_back("_metadata");
  DELTA_ASSIGN_OR_RETURN(SchemaRef output, IngestOutputSchema(spec));
  SourcePlan src;
  src.schema = output;
  src.name = display;
  if (hidden) src.hidden = {"_metadata"};
  if (!from.alias.empty()) src.qualifiers = {AsciiToLower(from.alias)};
  src.open = [fs, files, spec, plain,
              hidden](const std::vector<std::string>& columns) -> Result<ReaderRef> {
    const bool wanted = std::any_of(columns.begin(), columns.end(), [](const auto& c) {
      return EqualsIgnoreCase(c, "_metadata");
    });
    ReadSpec read = hidden && !wanted ? plain : spec;
    read.columns = columns;  // Parquet decodes only these (ingest/reader.h)
    return OpenIngestReader(fs, files, std::move(read), std::make_shared<ReadStats>());
  };
  return src;
}

}  // namespace deltaguard::query_internal

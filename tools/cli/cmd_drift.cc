// `deltaguard drift TABLE INPUT...` and `deltaguard diff A B`: classify the schema
// changes between a table and incoming data, or between any two of a table version, a
// data file and schema text (docs/drift.md). Only footers, stream headers and one
// bounded batch per input are read; table evidence comes from add-action statistics.

#include <algorithm>
#include <cstring>
#include <iostream>

#include "cli_common.h"
#include "deltaguard/arrow/schema.h"
#include "deltaguard/drift/classify.h"
#include "deltaguard/drift/evidence.h"
#include "deltaguard/drift/report.h"
#include "deltaguard/drift/schema_input.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/exec/input_source.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/table_drift.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {
namespace {

const FlagSpec kDriftFlags{{"--mode", "--format", "--fail-on", "--input-format",
                            "--delimiter", "--version", "--timestamp"},
                           {"--no-header"}};

// One side of a comparison, resolved.
struct Source {
  std::string label;
  DriftSide side;
  std::vector<ColumnEvidence> evidence;
  bool data = false;        // a data input: its nullability is ignored
  bool positional = false;  // headerless CSV
  std::vector<InferredColumn> inferred;
  std::string table_root;  // a table version: its root and version
  int64_t version = -1;
};

bool IsTable(const FileSystem& fs, const std::string& path) {
  auto exists = fs.Exists(path + "/_delta_log");
  return exists && *exists;
}

Result<Source> TableSource(const std::string& path, const SnapshotSpec& spec,
                           const std::string& label) {
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snap, OpenSnapshot(path, spec));
  Source s;
  s.label = label.empty() ? fmt::format("{}@v{}", path, snap->version()) : label;
  DELTA_ASSIGN_OR_RETURN(s.side, DriftSideFromMetadata(snap->metadata()));
  s.evidence = TableDriftEvidence(*snap);
  s.table_root = snap->table_root();
  s.version = snap->version();
  return s;
}

// The table's schema at every version in [from, to] that logged one, oldest first,
// starting with the schema in force at `from` (from the commits; old checkpoints may be
// gone, so the earliest available commit starts the list when `from` precedes it).
Result<std::vector<std::pair<int64_t, DriftSide>>> TableSchemas(const Source& table,
                                                                int64_t from,
                                                                int64_t to) {
  auto fs = MakeLocalFileSystem();
  DELTA_ASSIGN_OR_RETURN(std::vector<CommitSummary> commits,
                         ReadHistory(*fs, table.table_root));
  std::vector<std::pair<int64_t, DriftSide>> out;
  for (const auto& c : commits) {
    if (c.version > to) break;
    if (!c.metadata || c.metadata->schema_string.empty()) continue;
    DELTA_ASSIGN_OR_RETURN(DriftSide side, DriftSideFromMetadata(*c.metadata));
    if (c.version <= from && !out.empty()) out.clear();  // keep the one in force at from
    out.emplace_back(c.version, std::move(side));
  }
  return out;
}

// "v12" / "12" is a version, anything else a timestamp.
Result<SnapshotSpec> SpecFromSuffix(const std::string& suffix) {
  SnapshotSpec spec;
  std::string digits = !suffix.empty() && (suffix[0] == 'v' || suffix[0] == 'V')
                           ? suffix.substr(1)
                           : suffix;
  if (!digits.empty() && std::all_of(digits.begin(), digits.end(), ::isdigit)) {
    DELTA_ASSIGN_OR_RETURN(spec.version, ParseInt64(digits, "version"));
  } else {
    DELTA_ASSIGN_OR_RETURN(spec.timestamp_ms, ParseTimestampMillis(suffix));
  }
  return spec;
}

// Value evidence from the first batch of `file` (at most kDriftSampleRows rows).
Result<std::vector<ColumnEvidence>> SampleEvidence(const InputFile& file,
                                                   InputOptions options) {
  options.batch_rows = kDriftSampleRows;
  DELTA_ASSIGN_OR_RETURN(auto reader, OpenInput(file, options));
  std::shared_ptr<arrow::RecordBatch> batch;
  auto st = reader->ReadNext(&batch);
  if (!st.ok() || !batch) return std::vector<ColumnEvidence>{};  // types still compare
  return BatchDriftEvidence(*batch);
}

std::string CastNeeded(const DataType& inferred, const DataType& table) {
  if (inferred.Equals(table)) return "none";
  if (IsLosslessWriteCast(inferred, table)) return "lossless cast";
  if (IsTypeWideningSupported(table, inferred)) return "type widening";
  return "read as the table type (every value must parse)";
}

// CSV/JSON columns: the type inferred without the table's hint, and what the write does.
Result<std::vector<InferredColumn>> Inferred(const std::string& path,
                                             InputOptions options,
                                             const SchemaRef& table) {
  options.type_hint = nullptr;
  DELTA_ASSIGN_OR_RETURN(InputFile raw, InspectInput(path, options));
  DELTA_ASSIGN_OR_RETURN(SchemaRef schema, FromArrowSchema(*raw.schema));
  std::vector<InferredColumn> out;
  for (size_t i = 0; i < schema->num_fields(); ++i) {
    const StructField& f = schema->field(i);
    InferredColumn c{f.name, f.type->ToString(), "", "new column"};
    int t = table ? table->FieldIndexCaseInsensitive(f.name) : -1;
    if (!options.csv_header && table && i < table->num_fields()) t = static_cast<int>(i);
    if (t >= 0) {
      const StructField& tf = table->field(static_cast<size_t>(t));
      c.table_type = tf.type->ToString();
      c.cast = CastNeeded(*f.type, *tf.type);
      if (!options.csv_header) c.column = tf.name;
    }
    out.push_back(std::move(c));
  }
  return out;
}

// A coarse type family for positional matching: what a CSV reader can tell apart.
int Family(const DataType& t) {
  if (t.is_numeric()) return 0;
  if (t.kind() == TypeKind::kBoolean) return 1;
  if (t.kind() == TypeKind::kDate || t.kind() == TypeKind::kTimestamp ||
      t.kind() == TypeKind::kTimestampNtz) {
    return 2;
  }
  return 3;
}

// A headerless CSV read without the table's hint (columns _c0, _c1, ...), named after
// the table's columns by position; where the inferred type families disagree with the
// table's at their positions but agree as a permutation, each column is named after
// the table column of its family in order instead, so the classifier reports the
// reorder (high risk for a positional input) rather than a type change per column.
SchemaRef NamePositionally(const StructType& inferred, const StructType& table) {
  if (inferred.num_fields() != table.num_fields()) return nullptr;
  size_t n = table.num_fields();
  bool aligned = true;
  for (size_t i = 0; i < n; ++i) {
    aligned &= Family(*inferred.field(i).type) == Family(*table.field(i).type);
  }
  std::vector<size_t> target(n);
  for (size_t i = 0; i < n; ++i) target[i] = i;
  if (!aligned) {
    std::vector<bool> used(n, false);
    for (size_t i = 0; i < n; ++i) {
      size_t pick = n;
      for (size_t j = 0; j < n && pick == n; ++j) {
        if (!used[j] && Family(*inferred.field(i).type) == Family(*table.field(j).type)) {
          pick = j;
        }
      }
      if (pick == n) return nullptr;  // not a permutation: positional names stand
      used[pick] = true;
      target[i] = pick;
    }
  }
  std::vector<StructField> fields;
  for (size_t i = 0; i < n; ++i) {
    StructField f = inferred.field(i);
    f.name = table.field(target[i]).name;
    // The value is parsed as the table's type on write; a same-family difference
    // (long inferred for an INT column) is not drift.
    if (Family(*f.type) == Family(*table.field(target[i]).type)) {
      f.type = table.field(target[i]).type;
    }
    fields.push_back(std::move(f));
  }
  return std::make_shared<StructType>(std::move(fields));
}

// Data inputs (files, directories, globs): the schema the write would see (the table as
// type hint), the changes of every distinct input schema, evidence from the first file.
Result<Source> DataSource(const std::vector<std::string>& inputs, InputOptions options,
                          const SchemaRef& table, const std::string& label) {
  options.type_hint = table;
  DELTA_ASSIGN_OR_RETURN(std::vector<std::string> paths, ExpandInputPaths(inputs));
  Source s;
  s.data = true;
  s.label =
      label.empty()
          ? (paths.size() == 1 ? paths[0] : fmt::format("{} input files", paths.size()))
          : label;
  s.side.schema = nullptr;
  for (const auto& path : paths) {
    // A headerless CSV is read without the hint: with it, values are parsed as the
    // table's column at the same position, which is what a reorder breaks.
    DELTA_ASSIGN_OR_RETURN(InputFormat format, ResolveInputFormat(path, options));
    InputOptions inspect = options;
    bool positional = format == InputFormat::kCsv && !options.csv_header;
    if (positional) inspect.type_hint = nullptr;
    DELTA_ASSIGN_OR_RETURN(InputFile file, InspectInput(path, inspect));
    DELTA_ASSIGN_OR_RETURN(SchemaRef schema, FromArrowSchema(*file.schema));
    if (s.side.schema) continue;  // the first file's schema is the one compared
    s.side.schema = schema;
    s.positional = positional;
    if (positional && table) {
      if (SchemaRef named = NamePositionally(*schema, *table)) s.side.schema = named;
    }
    DELTA_ASSIGN_OR_RETURN(s.evidence, SampleEvidence(file, inspect));
    if (file.format == InputFormat::kCsv || file.format == InputFormat::kJson) {
      DELTA_ASSIGN_OR_RETURN(s.inferred, Inferred(path, options, table));
    }
  }
  return s;
}

bool HasDataExtension(const std::string& path) {
  std::string lower = AsciiToLower(path);
  for (const char* ext : {".parquet", ".pq", ".csv", ".tsv", ".ndjson", ".jsonl",
                          ".arrow", ".ipc", ".feather"}) {
    if (lower.size() > strlen(ext) && lower.ends_with(ext)) return true;
  }
  return false;
}

// One side of `diff`: a table (path, path@vN, path@TIMESTAMP), a data file or
// directory, a schema file, or schema text.
Result<Source> ResolveSide(const std::string& spec, const InputOptions& options,
                           const SchemaRef& hint) {
  auto fs = MakeLocalFileSystem();
  size_t at = spec.rfind('@');
  if (at != std::string::npos && at > 0 && IsTable(*fs, spec.substr(0, at))) {
    DELTA_ASSIGN_OR_RETURN(SnapshotSpec snap, SpecFromSuffix(spec.substr(at + 1)));
    return TableSource(spec.substr(0, at), snap, spec);
  }
  if (IsTable(*fs, spec)) return TableSource(spec, {}, "");
  bool glob = spec.find_first_of("*?") != std::string::npos;
  auto exists = fs->Exists(spec);
  bool is_dir = exists && *exists && fs->List(spec).has_value();
  if (glob || is_dir || (exists && *exists && HasDataExtension(spec))) {
    return DataSource({spec}, options, hint, "");
  }
  if (exists && *exists) {
    auto schema = ReadSchemaFile(*fs, spec);
    // A .json file that is not a schema is NDJSON data.
    if (!schema && AsciiToLower(spec).ends_with(".json")) {
      return DataSource({spec}, options, hint, "");
    }
    if (!schema) return schema.error();
    Source s;
    s.label = spec;
    s.side.schema = *schema;
    return s;
  }
  std::string_view trimmed = Trim(spec);
  bool looks_like_path =
      trimmed.find(' ') == std::string_view::npos &&
      (trimmed.find('/') != std::string_view::npos || HasDataExtension(spec) ||
       AsciiToLower(spec).ends_with(".json"));
  if (looks_like_path && !trimmed.empty() && trimmed.front() != '{') {
    return MakeError(ErrorCode::kNotFound,
                     "'{}' is not a table, a file or schema text (no such path)", spec);
  }
  DELTA_ASSIGN_OR_RETURN(SchemaRef schema, ParseSchemaText(spec));
  Source s;
  s.label = "schema text";
  s.side.schema = schema;
  return s;
}

struct OutputOptions {
  std::string format = "text";
  std::optional<CompatMode> mode;
  FailBar fail_on = FailBar::kHigh;
};

Result<OutputOptions> OutputOptionsFrom(const Args& args) {
  OutputOptions o;
  o.format = AsciiToLower(args.Get("--format").value_or("text"));
  if (o.format != "text" && o.format != "json" && o.format != "markdown" &&
      o.format != "junit" && o.format != "github") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "unknown --format '{}' (one of text, json, markdown, junit, github)",
                     o.format);
  }
  if (auto mode = args.Get("--mode")) {
    DELTA_ASSIGN_OR_RETURN(o.mode, ParseCompatMode(*mode));
  }
  o.fail_on = o.mode ? FailBar::kBreaking : FailBar::kHigh;
  if (auto bar = args.Get("--fail-on")) {
    DELTA_ASSIGN_OR_RETURN(o.fail_on, ParseFailBar(*bar));
  }
  return o;
}

Result<InputOptions> InputOptionsFrom(const Args& args) {
  InputOptions options;
  if (auto format = args.Get("--input-format")) {
    DELTA_ASSIGN_OR_RETURN(options.format, ParseInputFormat(*format));
  }
  options.csv_header = !args.Has("--no-header");
  if (auto d = args.Get("--delimiter")) {
    std::string c = *d == "\\t" ? "\t" : *d;
    if (c.size() != 1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--delimiter must be one character, got '{}'", *d);
    }
    options.csv_delimiter = c[0];
  }
  return options;
}

// A transitive mode with a table on the old side: the new side against every earlier
// version's schema (drift TABLE INPUT, diff TABLE INPUT) or, when both sides are
// versions of one table, every pair of versions between them. A breaking change of
// another pair that is not among `changes` is appended to them, its evidence naming
// the versions.
Result<Verdict> TransitiveVerdict(const Source& before, const Source& after,
                                  CompatMode mode, const DriftEvidence& flags_from,
                                  std::vector<DriftChange>* changes) {
  DriftEvidence flags;
  flags.positional = flags_from.positional;
  flags.ignore_new_nullability = flags_from.ignore_new_nullability;
  bool same_table =
      after.table_root == before.table_root && after.version > before.version;
  DELTA_ASSIGN_OR_RETURN(auto versions,
                         TableSchemas(before, same_table ? before.version : 0,
                                      same_table ? after.version : before.version));
  std::vector<DriftSide> sides;
  std::vector<std::string> labels;
  for (auto& [v, side] : versions) {
    sides.push_back(std::move(side));
    labels.push_back(fmt::format("v{}", v));
  }
  std::vector<SequenceStep> steps;
  Verdict raw;
  if (same_table) {
    raw = JudgeSequence(sides, mode, &steps, flags);
  } else {
    raw = JudgeAgainstPrevious(sides, after.side, mode, &steps, flags);
    labels.push_back(after.label);
  }
  Verdict verdict;
  verdict.mode = mode;
  for (const auto& b : raw.breaking) {
    const SequenceStep* step = nullptr;
    for (const auto& st : steps) {
      if (st.from == b.from_schema && st.to == b.to_schema) step = &st;
    }
    if (!step) continue;
    const DriftChange& c = step->changes[b.change];
    std::string between =
        fmt::format("{} -> {}", labels[b.from_schema], labels[b.to_schema]);
    size_t index = changes->size();
    for (size_t i = 0; i < changes->size(); ++i) {
      const DriftChange& e = (*changes)[i];
      if (e.cls == c.cls && e.path == c.path && e.before == c.before &&
          e.after == c.after) {
        index = i;
        break;
      }
    }
    if (index == changes->size()) {
      changes->push_back(c);
      changes->back().evidence =
          fmt::format("from {} to {}", labels[b.from_schema], labels[b.to_schema]);
    }
    bool seen = false;
    for (const auto& v : verdict.breaking) {
      seen |= v.change == index && v.direction == b.direction;
    }
    if (!seen) {
      verdict.breaking.push_back({index, b.direction,
                                  fmt::format("{} ({})", b.reason, between),
                                  b.from_schema, b.to_schema});
    }
  }
  verdict.compatible = verdict.breaking.empty();
  return verdict;
}

int Emit(const Source& before, const Source& after, const OutputOptions& o) {
  DriftEvidence evidence;
  evidence.before = before.evidence;
  evidence.after = after.evidence;
  evidence.positional = after.positional;
  // Data says nothing about nullability (Spark makes input nullable); a data side also
  // has no partitioning or constraints, so the classifier does not compare those.
  evidence.ignore_new_nullability = after.data || before.data;
  DriftReport r;
  r.before_label = before.label;
  r.after_label = after.label;
  r.before_schema = before.side.schema;
  r.after_schema = after.side.schema;
  r.changes = ClassifyDrift(before.side, after.side, evidence);
  // --fail-on breaking without --mode judges the registry default, BACKWARD.
  CompatMode mode = o.mode.value_or(
      o.fail_on == FailBar::kBreaking ? CompatMode::kBackward : CompatMode::kNone);
  r.verdict = JudgeChanges(r.changes, mode);
  if (IsTransitive(mode) && !before.table_root.empty()) {
    auto verdict = TransitiveVerdict(before, after, mode, evidence, &r.changes);
    if (!verdict) return ReportError(verdict.error(), before.label);
    r.verdict = std::move(*verdict);
  }
  r.fail_on = o.fail_on;
  r.inferred = after.inferred;
  if (o.format == "json") {
    std::cout << DriftReportJson(r) << "\n";
  } else if (o.format == "markdown") {
    std::cout << DriftReportMarkdown(r);
  } else if (o.format == "junit") {
    std::cout << DriftReportJunit(r);
  } else if (o.format == "github") {
    std::cout << DriftReportGithub(r);
  } else {
    std::cout << DriftReportText(r);
  }
  return ReportFails(r) ? kExitRefused : kExitOk;
}

}  // namespace

int RunDrift(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, kDriftFlags);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() < 2) {
    return ReportError(
        MakeError(
            ErrorCode::kInvalidArgument,
            "usage: deltaguard drift TABLE INPUT... [--mode M] "
            "[--format text|json|markdown|junit|github] [--fail-on breaking|high|any]"),
        "");
  }
  const std::string& table = args->positional[0];
  auto output = OutputOptionsFrom(*args);
  if (!output) return ReportError(output.error(), table);
  auto input = InputOptionsFrom(*args);
  if (!input) return ReportError(input.error(), table);
  auto spec = SnapshotSpecFromArgs(*args);
  if (!spec) return ReportError(spec.error(), table);
  auto before = TableSource(table, *spec, "");
  if (!before) return ReportError(before.error(), table);
  std::vector<std::string> inputs(args->positional.begin() + 1, args->positional.end());
  auto after = DataSource(inputs, *input, before->side.schema, "");
  if (!after) return ReportError(after.error(), table);
  return Emit(*before, *after, *output);
}

int RunDiff(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, kDriftFlags);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 2) {
    return ReportError(
        MakeError(
            ErrorCode::kInvalidArgument,
            "usage: deltaguard diff A B (each a table, TABLE@vN, TABLE@TIMESTAMP, a "
            "data file, a schema file or schema text) [--mode M] [--format F] "
            "[--fail-on breaking|high|any]"),
        "");
  }
  auto output = OutputOptionsFrom(*args);
  if (!output) return ReportError(output.error(), "");
  auto input = InputOptionsFrom(*args);
  if (!input) return ReportError(input.error(), "");
  auto before = ResolveSide(args->positional[0], *input, nullptr);
  if (!before) return ReportError(before.error(), args->positional[0]);
  auto after = ResolveSide(args->positional[1], *input, before->side.schema);
  if (!after) return ReportError(after.error(), args->positional[1]);
  return Emit(*before, *after, *output);
}

}  // namespace deltaguard::cli

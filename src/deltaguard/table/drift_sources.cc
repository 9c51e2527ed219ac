// Resolving the sides of a drift comparison and building the report (docs/drift.md):
// what `deltaguard drift/diff`, SQL DESCRIBE DRIFT and the Python package share.

#include "deltaguard/table/drift_sources.h"

#include <arrow/record_batch.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/drift/schema_input.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/table_drift.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/util/timestamp_text.h"

namespace deltaguard {
namespace {

bool IsTable(const FileSystem& fs, const std::string& path) {
  auto exists = fs.Exists(path + "/_delta_log");
  return exists && *exists;
}

// "v12" / "12" is a version, anything else a timestamp.
Result<SnapshotSpec> SpecFromSuffix(const std::string& suffix) {
  SnapshotSpec spec;
  std::string digits = !suffix.empty() && (suffix[0] == 'v' || suffix[0] == 'V')
                           ? suffix.substr(1)
                           : suffix;
  if (!digits.empty() && digits.size() <= 18 &&
      std::all_of(digits.begin(), digits.end(),
                  [](unsigned char c) { return std::isdigit(c) != 0; })) {
    spec.version = std::stoll(digits);
  } else {
    DELTA_ASSIGN_OR_RETURN(spec.timestamp_ms, ParseUserTimestampMillis(suffix));
  }
  return spec;
}

// The table's schema at every version in [from, to] that logged one, oldest first,
// starting with the schema in force at `from` (from the commits; old checkpoints may be
// gone, so the earliest available commit starts the list when `from` precedes it).
Result<std::vector<std::pair<int64_t, DriftSide>>> TableSchemas(const DriftSource& table,
                                                                int64_t from,
                                                                int64_t to) {
  DELTA_ASSIGN_OR_RETURN(std::vector<CommitSummary> commits,
                         ReadHistory(*table.fs, table.table_root));
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

bool HasDataExtension(const std::string& path) {
  std::string lower = AsciiToLower(path);
  for (const char* ext : {".parquet", ".pq", ".csv", ".tsv", ".ndjson", ".jsonl",
                          ".arrow", ".ipc", ".feather"}) {
    if (lower.size() > strlen(ext) && lower.ends_with(ext)) return true;
  }
  return false;
}

// A transitive mode with a table on the old side: the new side against every earlier
// version's schema or, when both sides are versions of one table, every pair of
// versions between them. A breaking change of another pair that is not among
// `changes` is appended to them, its evidence naming the versions.
Result<Verdict> TransitiveVerdict(const DriftSource& before, const DriftSource& after,
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
    auto same = [&c](const DriftChange& e) {
      return e.cls == c.cls && e.path == c.path && e.before == c.before &&
             e.after == c.after;
    };
    size_t index = static_cast<size_t>(
        std::find_if(changes->begin(), changes->end(), same) - changes->begin());
    if (index == changes->size()) {
      changes->push_back(c);
      changes->back().evidence =
          fmt::format("from {} to {}", labels[b.from_schema], labels[b.to_schema]);
    }
    bool seen = std::any_of(verdict.breaking.begin(), verdict.breaking.end(),
                            [&](const BreakingChange& v) {
                              return v.change == index && v.direction == b.direction;
                            });
    if (!seen) {
      verdict.breaking.push_back({index, b.direction,
                                  fmt::format("{} ({})", b.reason, between),
                                  b.from_schema, b.to_schema});
    }
  }
  verdict.compatible = verdict.breaking.empty();
  return verdict;
}

}  // namespace

Result<DriftSource> TableDriftSource(const FileSystemRef& fs, const Snapshot& snapshot,
                                     std::string label) {
  DriftSource s;
  s.label = label.empty()
                ? fmt::format("{}@v{}", snapshot.table_root(), snapshot.version())
                : std::move(label);
  DELTA_ASSIGN_OR_RETURN(s.side, DriftSideFromMetadata(snapshot.metadata()));
  s.evidence = TableDriftEvidence(snapshot);
  s.fs = fs ? fs : MakeLocalFileSystem();
  s.table_root = snapshot.table_root();
  s.version = snapshot.version();
  return s;
}

Result<DriftSource> FileDriftSource(const std::vector<std::string>& inputs,
                                    InputOptions options, const SchemaRef& table,
                                    std::string label) {
  options.type_hint = table;
  DELTA_ASSIGN_OR_RETURN(std::vector<std::string> paths,
                         ExpandInputPaths(inputs, options.fs));
  DriftSource s;
  s.data = true;
  s.label = !label.empty()      ? std::move(label)
            : paths.size() == 1 ? paths[0]
                                : fmt::format("{} input files", paths.size());
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

DriftSource BatchDriftSource(SchemaRef schema, const arrow::RecordBatch* first_batch,
                             std::string label) {
  DriftSource s;
  s.data = true;
  s.label = std::move(label);
  s.side.schema = std::move(schema);
  if (first_batch != nullptr) s.evidence = BatchDriftEvidence(*first_batch);
  return s;
}

Result<DriftSource> ArrowBatchDriftSource(const arrow::Schema& schema,
                                          const arrow::RecordBatch* first_batch,
                                          std::string label) {
  DELTA_ASSIGN_OR_RETURN(SchemaRef delta, FromArrowSchema(schema));
  return BatchDriftSource(std::move(delta), first_batch, std::move(label));
}

Result<DriftSource> SchemaDriftSource(const SchemaRef& schema, std::string label) {
  if (!schema) {
    return MakeError(ErrorCode::kInvalidArgument, "drift: no schema given for '{}'",
                     label);
  }
  DriftSource s;
  s.label = std::move(label);
  s.side.schema = schema;
  return s;
}

Result<DriftSource> ResolveDriftSource(const FileSystemRef& fs_in,
                                       const std::string& spec,
                                       const InputOptions& options,
                                       const SchemaRef& hint) {
  FileSystemRef fs = fs_in ? fs_in : MakeLocalFileSystem();
  size_t at = spec.rfind('@');
  if (at != std::string::npos && at > 0 && IsTable(*fs, spec.substr(0, at))) {
    DELTA_ASSIGN_OR_RETURN(SnapshotSpec snap, SpecFromSuffix(spec.substr(at + 1)));
    DELTA_ASSIGN_OR_RETURN(SnapshotRef s, OpenSnapshot(fs, spec.substr(0, at), snap));
    return TableDriftSource(fs, *s, spec);
  }
  if (IsTable(*fs, spec)) {
    DELTA_ASSIGN_OR_RETURN(SnapshotRef s, OpenSnapshot(fs, spec, {}));
    return TableDriftSource(fs, *s, fmt::format("{}@v{}", spec, s->version()));
  }
  InputOptions data_options = options;
  data_options.fs = fs;
  bool glob = spec.find_first_of("*?") != std::string::npos;
  auto exists = fs->Exists(spec);
  bool found = exists && *exists;
  bool is_dir = found && fs->List(spec).has_value();
  if (glob || is_dir || (found && HasDataExtension(spec))) {
    return FileDriftSource({spec}, data_options, hint);
  }
  if (found) {
    auto schema = ReadSchemaFile(*fs, spec);
    // A .json file that is not a schema is NDJSON data.
    if (!schema && AsciiToLower(spec).ends_with(".json")) {
      return FileDriftSource({spec}, data_options, hint);
    }
    if (!schema) return schema.error();
    return SchemaDriftSource(*schema, spec);
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
  return SchemaDriftSource(schema, "schema text");
}

Result<DriftReport> BuildDriftReport(const DriftSource& before, const DriftSource& after,
                                     const DriftReportOptions& options) {
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
  r.fail_on =
      options.fail_on.value_or(options.mode ? FailBar::kBreaking : FailBar::kHigh);
  // --fail-on breaking without a mode judges the registry default, BACKWARD.
  CompatMode mode = options.mode.value_or(
      r.fail_on == FailBar::kBreaking ? CompatMode::kBackward : CompatMode::kNone);
  r.verdict = JudgeChanges(r.changes, mode);
  if (IsTransitive(mode) && !before.table_root.empty()) {
    DELTA_ASSIGN_OR_RETURN(r.verdict,
                           TransitiveVerdict(before, after, mode, evidence, &r.changes));
  }
  r.inferred = after.inferred;
  return r;
}

}  // namespace deltaguard

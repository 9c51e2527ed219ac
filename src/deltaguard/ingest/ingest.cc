// The ingestion driver (ingest/ingest.h): plan, read, commit, record, per batch.

#include "deltaguard/ingest/ingest.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <thread>

#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/ingest/infer.h"
#include "deltaguard/ingest/listing.h"
#include "deltaguard/ingest/reader.h"
#include "deltaguard/ingest/state.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/table/quarantine.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {
namespace {

// The type at `path` in `schema` (through structs and arrays), or null.
DataTypeRef TypeAt(const StructType& schema, const std::vector<std::string>& path) {
  const StructType* s = &schema;
  DataTypeRef t;
  for (size_t i = 0; i < path.size(); ++i) {
    if (s == nullptr) return nullptr;
    const int at = s->FieldIndexCaseInsensitive(path[i]);
    if (at < 0) return nullptr;
    t = s->field(static_cast<size_t>(at)).type;
    while (t->kind() == TypeKind::kArray) {
      t = static_cast<const ArrayType&>(*t).element_type();
    }
    s = t->kind() == TypeKind::kStruct ? static_cast<const StructType*>(t.get())
                                       : nullptr;
  }
  return t;
}

class Run {
 public:
  Run(FileSystemRef fs, const IngestRequest& r,
      const std::function<void(const BatchProgress&)>& on_batch, IngestResult* out)
      : fs_(std::move(fs)), r_(r), on_batch_(on_batch), out_(out) {}

  Status Go() {
    location_ =
        r_.options.schema_location.empty() ? r_.checkpoint : r_.options.schema_location;
    DELTA_ASSIGN_OR_RETURN(cp_, IngestCheckpoint::Open(fs_, r_.checkpoint, r_.source,
                                                       r_.table, internal::NowMillis()));
    DELTA_ASSIGN_OR_RETURN(history_, ReadSchemaHistory(*fs_, location_));
    if (cp_->pending()) {
      // An earlier run planned this batch and did not record its commit: replay the
      // same files (the table's txn skips it when it did commit).
      PlannedBatch b = *cp_->pending();
      DELTA_RETURN_IF_ERROR(EnsureSchema(b.files));
      DELTA_RETURN_IF_ERROR(RunBatch(b, true));
    }
    while (true) {
      if (Stopped()) return OkStatus();
      DELTA_ASSIGN_OR_RETURN(auto fresh, NewFiles());
      if (fresh.empty()) {
        if (r_.trigger != IngestTrigger::kContinuous) return OkStatus();
        Wait();
        continue;
      }
      DELTA_RETURN_IF_ERROR(EnsureSchema(fresh));
      // Trigger once: everything new in one batch; otherwise within the limits.
      size_t taken = 0;
      while (taken < fresh.size()) {
        PlannedBatch b;
        b.batch = cp_->next_batch();
        b.schema_version = history_.back().version;
        int64_t bytes = 0;
        while (taken < fresh.size()) {
          const bool limited = r_.trigger != IngestTrigger::kOnce;
          if (limited && !b.files.empty() &&
              (static_cast<int64_t>(b.files.size()) >= r_.options.max_files_per_trigger ||
               (r_.options.max_bytes_per_trigger > 0 &&
                bytes + fresh[taken].size > r_.options.max_bytes_per_trigger))) {
            break;
          }
          bytes += fresh[taken].size;
          b.files.push_back(fresh[taken++]);
        }
        DELTA_RETURN_IF_ERROR(cp_->Plan(b));
        backlog_ = static_cast<int64_t>(fresh.size() - taken);
        DELTA_RETURN_IF_ERROR(RunBatch(b, false));
        if (Stopped()) return OkStatus();
      }
      if (r_.trigger == IngestTrigger::kOnce) return OkStatus();
      if (r_.trigger == IngestTrigger::kAvailableNow) {
        // Files that arrived during the run are the next run's (Spark's availableNow
        // takes the backlog as it was at the start).
        return OkStatus();
      }
    }
  }

 private:
  bool Stopped() const { return r_.stop_requested && r_.stop_requested(); }

  void Wait() const {
    const int64_t until = internal::NowMillis() + r_.interval_ms;
    while (internal::NowMillis() < until && !Stopped()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // Files not taken yet; taken files that changed since are reported once.
  Result<std::vector<IngestFile>> NewFiles() {
    DELTA_ASSIGN_OR_RETURN(auto files,
                           ListSourceFiles(*fs_, r_.source, r_.options.path_glob_filter));
    std::vector<IngestFile> fresh;
    for (auto& f : files) {
      if (const TakenFile* t = cp_->Taken(f.path)) {
        if ((t->size != f.size || t->modification_time != f.modification_time) &&
            std::find(out_->changed_files.begin(), out_->changed_files.end(), f.path) ==
                out_->changed_files.end()) {
          out_->changed_files.push_back(f.path);
        }
        continue;
      }
      if (!r_.options.include_existing_files && f.modification_time < cp_->start_ms()) {
        continue;
      }
      fresh.push_back(std::move(f));
    }
    return fresh;
  }

  // The schema to read with: the given one, else the newest version, else inferred
  // from `sample` and recorded as version 0.
  Status EnsureSchema(const std::vector<IngestFile>& sample) {
    SchemaRef wanted;
    std::string reason;
    if (!r_.options.schema.empty()) {
      DELTA_ASSIGN_OR_RETURN(wanted, GivenIngestSchema(r_.options));
      reason = "the given schema";
      if (!history_.empty() && history_.back().schema->Equals(*wanted)) return OkStatus();
    } else if (!history_.empty()) {
      return OkStatus();
    } else {
      DELTA_ASSIGN_OR_RETURN(wanted, InferIngestSchema(fs_, sample, r_.options));
      reason = fmt::format(
          "inferred from {} file{}",
          std::min<int64_t>(static_cast<int64_t>(sample.size()), r_.options.sample_files),
          sample.size() == 1 ? "" : "s");
    }
    SchemaVersion v;
    v.version = history_.empty() ? 0 : history_.back().version + 1;
    v.batch = cp_->next_batch();
    v.schema = wanted;
    for (const auto& f : wanted->fields()) v.added.push_back(f.name);
    v.reason = reason;
    v.created_ms = internal::NowMillis();
    DELTA_RETURN_IF_ERROR(WriteSchemaVersion(*fs_, location_, v));
    history_.push_back(std::move(v));
    return OkStatus();
  }

  std::function<bool(const UnknownField&)> Evolves(const SchemaRef& schema) const {
    switch (r_.options.EffectiveMode()) {
      case EvolutionMode::kAddNewColumns:
      case EvolutionMode::kFailOnNewColumns:
        return [](const UnknownField& u) { return !u.mismatch; };
      case EvolutionMode::kAddNewColumnsWithTypeWidening:
        return [schema](const UnknownField& u) {
          if (!u.mismatch) return true;
          if (u.path.size() != 1) return false;
          DataTypeRef now = TypeAt(*schema, u.path);
          DataTypeRef to = ResolveVoid(u.type);
          return now != nullptr && !now->Equals(*to) &&
                 IsTypeWideningSupported(*now, *to);
        };
      default:
        return nullptr;
    }
  }

  Status RunBatch(const PlannedBatch& b, bool replayed) {
    const auto started = std::chrono::steady_clock::now();
    BatchProgress p;
    p.batch = b.batch;
    p.replayed = replayed;
    p.schema_version = history_.back().version;
    p.backlog_files = replayed ? 0 : backlog_;
    if (replayed) {
      for (const auto& f : b.files) {
        auto now = fs_->Stat(f.path);
        if (!now) {
          return WithContext(now.error(),
                             fmt::format("batch {} took '{}', which is gone; restore it "
                                         "to finish the batch",
                                         b.batch, f.path));
        }
        if (now->size < f.size) {
          return MakeError(ErrorCode::kCorruptData,
                           "batch {} took '{}' at {} bytes and it now has {}: it changed "
                           "after it was taken; restore it to finish the batch",
                           b.batch, f.path, f.size, now->size);
        }
        if (now->size != f.size || now->modification_time != f.modification_time) {
          p.warnings.push_back(fmt::format(
              "'{}' changed after batch {} took it; its first {} bytes are read", f.path,
              b.batch, f.size));
        }
      }
    }
    ReadSpec spec;
    spec.options = r_.options;
    spec.data_schema = history_.back().schema;
    spec.evolves = Evolves(spec.data_schema);
    spec.ingested_at_micros = internal::NowMillis() * 1000;
    auto stats = std::make_shared<ReadStats>();
    DELTA_ASSIGN_OR_RETURN(auto reader, OpenIngestReader(fs_, b.files, spec, stats));
    std::vector<BatchSource> sources;
    sources.push_back(SourceFromReader(fmt::format("batch {} of {}", b.batch, r_.source),
                                       std::move(reader)));
    if (r_.transform) {
      DELTA_ASSIGN_OR_RETURN(sources[0].delta_schema, IngestOutputSchema(spec));
      auto mapped = r_.transform(std::move(sources[0]));
      if (!mapped) {
        return WithContext(mapped.error(),
                           fmt::format("batch {} of '{}' (nothing of it was committed)",
                                       b.batch, r_.source));
      }
      sources[0] = std::move(*mapped);
    }
    WriteOptions w;
    w.mode = WriteMode::kAppend;
    w.merge_schema = true;  // the schema location decides; the table follows it
    w.txn_app_id = cp_->app_id();
    w.txn_version = b.batch;
    w.operation = "STREAMING UPDATE";
    w.check = r_.check;
    if (r_.options.EffectiveMode() == EvolutionMode::kAddNewColumnsWithTypeWidening) {
      w.properties.emplace_back("delta.enableTypeWidening", "true");
    }
    Result<WriteResult> written = [&]() -> Result<WriteResult> {
      if (w.check && w.check->on_failure == CheckFailureAction::kQuarantine) {
        DELTA_ASSIGN_OR_RETURN(auto q,
                               WriteWithQuarantine(fs_, r_.table, std::move(sources), w,
                                                   w.check->quarantine, r_.session));
        p.quarantined_rows = q.quarantined_rows;
        return std::move(q.table);
      }
      return WriteTable(fs_, r_.table, std::move(sources), w, r_.session);
    }();
    if (!written) {
      if (written.error().code == ErrorCode::kSchemaMismatch &&
          std::any_of(
              stats->unknown.begin(), stats->unknown.end(),
              [&](const UnknownField& u) { return spec.evolves && spec.evolves(u); })) {
        return NewColumns(b, *stats, spec);
      }
      return WithContext(written.error(),
                         fmt::format("batch {} of '{}' (nothing of it was committed)",
                                     b.batch, r_.source));
    }
    p.table_version = written->skipped ? -1 : written->version;
    p.files = stats->files;
    p.rows = stats->rows;
    p.written_rows = written->skipped ? 0 : written->rows;
    p.bytes = stats->bytes;
    p.rescued_rows = stats->rescued_rows;
    p.malformed_rows = stats->malformed_rows;
    p.dropped_rows = stats->dropped_rows;
    for (auto& warning : written->warnings) p.warnings.push_back(std::move(warning));
    if (written->skipped) {
      p.files = static_cast<int64_t>(b.files.size());
      p.warnings.push_back(fmt::format(
          "batch {} was already committed by an earlier run; not written again",
          b.batch));
    }
    DELTA_RETURN_IF_ERROR(cp_->Commit(b.batch, p.table_version, p.rows));
    p.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    out_->batches.push_back(p);
    out_->schema_version = p.schema_version;
    if (on_batch_) on_batch_(p);
    return OkStatus();
  }

  // The batch met fields that change the schema (docs/ingest.md "Evolution modes").
  Status NewColumns(const PlannedBatch& b, const ReadStats& stats, const ReadSpec& spec) {
    std::vector<UnknownField> evolving;
    std::string names;
    for (const auto& u : stats.unknown) {
      if (!spec.evolves(u)) continue;
      evolving.push_back(u);
      names += fmt::format("{}{} ({}{})", names.empty() ? "" : ", ",
                           FormatColumnPath(u.path), u.mismatch ? "values of type " : "",
                           ResolveVoid(u.type)->ToString());
    }
    if (r_.options.EffectiveMode() == EvolutionMode::kFailOnNewColumns) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "UNKNOWN_FIELD_EXCEPTION: batch {} of '{}' has new columns: {}; "
                       "cloudFiles.schemaEvolutionMode is failOnNewColumns, so the "
                       "schema does not evolve: add them to the schema (or "
                       "cloudFiles.schemaHints), or remove the files; nothing of the "
                       "batch was committed",
                       b.batch, r_.source, names);
    }
    std::vector<std::string> added, widened;
    SchemaRef evolved =
        EvolveIngestSchema(history_.back().schema, evolving, &added, &widened);
    SchemaVersion v;
    v.version = history_.back().version + 1;
    v.batch = b.batch;
    v.schema = evolved;
    v.added = added;
    v.widened = widened;
    v.reason = fmt::format("batch {}", b.batch);
    v.created_ms = internal::NowMillis();
    DELTA_RETURN_IF_ERROR(WriteSchemaVersion(*fs_, location_, v));
    history_.push_back(v);
    return MakeError(ErrorCode::kSchemaMismatch,
                     "UNKNOWN_FIELD_EXCEPTION: batch {} of '{}' has new columns: {}. The "
                     "schema location recorded them as schema version {}; run the "
                     "ingestion again to pick them up (nothing of the batch was "
                     "committed, nothing is lost)",
                     b.batch, r_.source, names, v.version);
  }

  FileSystemRef fs_;
  const IngestRequest& r_;
  const std::function<void(const BatchProgress&)>& on_batch_;
  IngestResult* out_;
  std::string location_;
  std::optional<IngestCheckpoint> cp_;
  std::vector<SchemaVersion> history_;
  int64_t backlog_ = 0;
};

}  // namespace

Result<IngestTrigger> ParseIngestTrigger(std::string_view text, int64_t* interval_ms) {
  if (EqualsIgnoreCase(text, "once")) return IngestTrigger::kOnce;
  if (EqualsIgnoreCase(text, "available-now") || EqualsIgnoreCase(text, "availableNow")) {
    return IngestTrigger::kAvailableNow;
  }
  if (StartsWithIgnoreCase(text, "continuous")) {
    std::string_view rest = text.substr(10);
    if (rest.empty()) return IngestTrigger::kContinuous;
    if (rest[0] == '=') {
      std::string_view v = rest.substr(1);
      int64_t unit = 1000;
      if (v.size() > 2 && EqualsIgnoreCase(v.substr(v.size() - 2), "ms")) {
        unit = 1;
        v.remove_suffix(2);
      } else if (!v.empty() && (v.back() == 's' || v.back() == 'S')) {
        v.remove_suffix(1);
      } else if (!v.empty() && (v.back() == 'm' || v.back() == 'M')) {
        unit = 60000;
        v.remove_suffix(1);
      }
      int64_t n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec == std::errc() && p == v.data() + v.size() && n > 0) {
        *interval_ms = n * unit;
        return IngestTrigger::kContinuous;
      }
    }
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "trigger '{}' is not once, available-now or continuous[=INTERVAL] "
                   "(like continuous=10s)",
                   text);
}

Result<IngestResult> RunIngest(FileSystemRef fs, const IngestRequest& request,
                               const std::function<void(const BatchProgress&)>& on_batch,
                               IngestResult* partial) {
  IngestResult result;
  Run run(std::move(fs), request, on_batch, &result);
  Status st = run.Go();
  if (!st) {
    if (partial != nullptr) *partial = std::move(result);
    return st.error();
  }
  return result;
}

std::string BatchProgressJson(const BatchProgress& p) {
  std::string out = "{";
  AppendJsonRawField(&out, "batch", std::to_string(p.batch));
  AppendJsonRawField(&out, "table_version", std::to_string(p.table_version));
  AppendJsonRawField(&out, "replayed", p.replayed ? "true" : "false");
  AppendJsonRawField(&out, "files", std::to_string(p.files));
  AppendJsonRawField(&out, "rows", std::to_string(p.rows));
  AppendJsonRawField(&out, "bytes", std::to_string(p.bytes));
  AppendJsonRawField(&out, "rescued_rows", std::to_string(p.rescued_rows));
  AppendJsonRawField(&out, "malformed_rows", std::to_string(p.malformed_rows));
  AppendJsonRawField(&out, "dropped_rows", std::to_string(p.dropped_rows));
  AppendJsonRawField(&out, "quarantined_rows", std::to_string(p.quarantined_rows));
  AppendJsonRawField(&out, "schema_version", std::to_string(p.schema_version));
  AppendJsonRawField(&out, "backlog_files", std::to_string(p.backlog_files));
  AppendJsonRawField(&out, "seconds", fmt::format("{:.3f}", p.seconds));
  std::string w;
  AppendJsonStringArray(p.warnings, &w);
  AppendJsonRawField(&out, "warnings", w);
  return out + "}";
}

}  // namespace deltaguard

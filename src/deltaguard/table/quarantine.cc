// WriteFilesWithQuarantine (quarantine.h): split the inputs by the table's constraints,
// commit the violating rows to the quarantine table first, then the good rows.

#include "deltaguard/table/quarantine.h"

#include <arrow/record_batch.h>
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <utility>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/io/parquet/arrow_status_internal.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write_internal.h"

namespace deltaguard {
namespace {

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The table schema with every column nullable, and every field of the structs nested in
// it: NULLs in NOT NULL fields must reach the split (as the kNotNull constraints of
// NotNullConstraints) instead of failing the conformer. NOT NULL inside arrays and maps
// stays, so such a NULL still fails the write.
std::vector<StructField> RelaxedFields(const StructType& st) {
  std::vector<StructField> fields = st.fields();
  for (auto& f : fields) {
    f.nullable = true;
    if (f.type->kind() == TypeKind::kStruct) {
      f.type = std::make_shared<const StructType>(
          RelaxedFields(static_cast<const StructType&>(*f.type)));
    }
  }
  return fields;
}

SchemaRef Relaxed(const StructType& schema) {
  return std::make_shared<const StructType>(RelaxedFields(schema));
}

// The table's constraints plus its NOT NULL columns, NOT NULL first.
Result<ConstraintChecker> MakeChecker(const Snapshot& snapshot, const std::string& path) {
  std::vector<BoundConstraint> bound;
  for (const Constraint& c : NotNullConstraints(*snapshot.schema())) {
    DELTA_ASSIGN_OR_RETURN(BoundConstraint b, BindConstraint(c, *snapshot.schema()));
    bound.push_back(std::move(b));
  }
  DELTA_ASSIGN_OR_RETURN(auto rest,
                         BindAllConstraints(snapshot.metadata(), *snapshot.schema()));
  for (auto& b : rest) bound.push_back(std::move(b));
  DELTA_ASSIGN_OR_RETURN(auto limits, CharVarcharLimits(*snapshot.schema()));
  return ConstraintChecker(std::move(bound), std::move(limits), path);
}

struct Input {
  InputFile file;
  std::shared_ptr<BatchConformer> conformer;
};

// Reads one input, conformed to the relaxed schema, and yields its good rows only.
class GoodRowsReader final : public arrow::RecordBatchReader {
 public:
  GoodRowsReader(std::shared_ptr<arrow::RecordBatchReader> inner, Input input,
                 std::shared_ptr<const ConstraintChecker> checker, int64_t now)
      : inner_(std::move(inner)),
        input_(std::move(input)),
        checker_(std::move(checker)),
        now_(now) {}

  std::shared_ptr<arrow::Schema> schema() const override {
    return input_.conformer->output_schema();
  }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(inner_->ReadNext(&batch));
      if (!batch) {
        *out = nullptr;
        return arrow::Status::OK();
      }
      auto conformed = input_.conformer->Conform(*batch, row_);
      row_ += batch->num_rows();
      if (!conformed) return arrow::Status::Invalid(conformed.error().ToString());
      auto split = checker_->Split(*conformed, now_);
      if (!split) return arrow::Status::Invalid(split.error().ToString());
      if (split->good->num_rows() == 0) continue;
      *out = split->good;
      return arrow::Status::OK();
    }
  }

  arrow::Status Close() override { return inner_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> inner_;
  Input input_;
  std::shared_ptr<const ConstraintChecker> checker_;
  int64_t now_;
  int64_t row_ = 0;
};

// Commit the violating rows to the quarantine table (created when absent).
Result<WriteResult> WriteQuarantine(const FileSystemRef& fs, const std::string& qpath,
                                    const StructType& table_schema,
                                    std::vector<std::shared_ptr<arrow::RecordBatch>> rows,
                                    const SessionSettings& session, bool* created) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(qpath));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef existing, internal::LoadIfExists(fs, root));
  if (!existing) {
    CreateTableOptions create;
    DELTA_ASSIGN_OR_RETURN(create.schema, QuarantineSchema(table_schema));
    create.description = "rows quarantined by deltaguard write --on-violation";
    DELTA_ASSIGN_OR_RETURN(WriteResult made, CreateTable(fs, qpath, create, session));
    (void)made;
    *created = true;
  }
  auto schema = rows.front()->schema();
  DELTA_ARROW_ASSIGN_OR_RETURN(auto reader,
                               arrow::RecordBatchReader::Make(std::move(rows), schema),
                               ErrorCode::kInternal, "quarantine rows");
  WriteOptions options;
  options.mode = WriteMode::kAppend;
  options.merge_schema = false;
  options.operation = "WRITE";
  std::vector<BatchSource> sources;
  sources.push_back(SourceFromReader("quarantined rows", std::move(reader)));
  return WriteTable(fs, qpath, std::move(sources), options, session);
}

}  // namespace

Result<QuarantineWriteResult> WriteFilesWithQuarantine(
    FileSystemRef fs, const std::string& path, const std::vector<std::string>& inputs,
    InputOptions input_options, const WriteOptions& options,
    const std::string& quarantine_path, const SessionSettings& session,
    int64_t now_micros) {
  QuarantineWriteResult result;
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(std::string qroot, NormalizeTablePath(quarantine_path));
  if (root == qroot) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the quarantine table '{}' must differ from the table '{}'",
                     quarantine_path, path);
  }
  if (options.overwrite_schema || options.merge_schema.value_or(session.auto_merge)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "writing to '{}' with quarantine: schema evolution (merge or "
        "overwrite schema) cannot be combined with --on-violation quarantine "
        "(rows are checked against the table's current schema)",
        path);
  }
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, internal::LoadIfExists(fs, root));
  if (!snapshot) {
    // No table yet: no constraints, nothing to quarantine.
    DELTA_ASSIGN_OR_RETURN(result.table,
                           WriteFiles(fs, path, inputs, input_options, options, session));
    result.good_rows = result.table.rows;
    return result;
  }
  const int64_t now = now_micros >= 0 ? now_micros : Now();
  result.quarantined_at_micros = now;
  DELTA_ASSIGN_OR_RETURN(ConstraintChecker made, MakeChecker(*snapshot, path));
  auto checker = std::make_shared<const ConstraintChecker>(std::move(made));
  SchemaRef relaxed = Relaxed(*snapshot->schema());
  if (!input_options.type_hint) input_options.type_hint = snapshot->schema();

  // Inspect every input before reading any (as WriteFiles does).
  DELTA_ASSIGN_OR_RETURN(auto files, ExpandInputPaths(inputs));
  std::vector<Input> sources;
  for (const auto& file : files) {
    Input in;
    DELTA_ASSIGN_OR_RETURN(in.file, InspectInput(file, input_options));
    ConformOptions conform;
    conform.table_name = path;
    auto conformer = BatchConformer::Make(relaxed, in.file.schema, conform);
    if (!conformer)
      return WithContext(conformer.error(), fmt::format("input '{}'", file));
    in.conformer = std::move(*conformer);
    sources.push_back(std::move(in));
  }

  // Pass 1: split, keep the violating rows.
  std::vector<std::shared_ptr<arrow::RecordBatch>> violating;
  for (const Input& in : sources) {
    DELTA_ASSIGN_OR_RETURN(auto reader, OpenInput(in.file, input_options));
    int64_t row = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      DELTA_ARROW_RETURN_NOT_OK(reader->ReadNext(&batch), ErrorCode::kCorruptData,
                                fmt::format("input '{}'", in.file.path));
      if (!batch) break;
      auto conformed = in.conformer->Conform(*batch, row);
      if (!conformed) {
        return WithContext(conformed.error(), fmt::format("input '{}'", in.file.path));
      }
      row += batch->num_rows();
      DELTA_ASSIGN_OR_RETURN(SplitBatch split, checker->Split(*conformed, now));
      result.good_rows += split.good->num_rows();
      if (split.num_violating == 0) continue;
      result.quarantined_rows += split.num_violating;
      const auto& names =
          split.violating->GetColumnByName(std::string(kQuarantineConstraintColumn));
      const auto& strings = static_cast<const arrow::StringArray&>(*names);
      for (int64_t i = 0; i < strings.length(); ++i) {
        std::string name(strings.GetView(i));
        bool found = false;
        for (auto& [n, count] : result.by_constraint) {
          if (n == name) {
            ++count;
            found = true;
            break;
          }
        }
        if (!found) result.by_constraint.emplace_back(std::move(name), 1);
      }
      violating.push_back(split.violating);
    }
  }

  // Step 2: the quarantine commit comes first (see the file comment).
  if (!violating.empty()) {
    auto written =
        WriteQuarantine(fs, quarantine_path, *snapshot->schema(), std::move(violating),
                        session, &result.quarantine_created);
    if (!written) {
      return WithContext(
          written.error(),
          fmt::format("quarantine table '{}' (nothing was written to '{}')",
                      quarantine_path, path));
    }
    result.quarantine = std::move(*written);
  }

  // Step 3: the good rows.
  std::vector<BatchSource> good;
  for (const Input& in : sources) {
    BatchSource source;
    source.name = in.file.path;
    source.schema = in.conformer->output_schema();
    source.open = [in, input_options, checker,
                   now]() -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
      DELTA_ASSIGN_OR_RETURN(auto reader, OpenInput(in.file, input_options));
      return std::shared_ptr<arrow::RecordBatchReader>(
          std::make_shared<GoodRowsReader>(std::move(reader), in, checker, now));
    };
    good.push_back(std::move(source));
  }
  auto written = WriteTable(fs, path, std::move(good), options, session);
  if (!written) {
    if (result.quarantine) {
      return WithContext(
          written.error(),
          fmt::format(
              "writing the good rows to '{}' failed after {} violating rows were "
              "committed to the quarantine table '{}' (version {}); the good rows "
              "are still in the inputs: rerunning the write loses no row but "
              "quarantines those rows again",
              path, result.quarantined_rows, quarantine_path,
              result.quarantine->version));
    }
    return written.error();
  }
  result.table = std::move(*written);
  return result;
}

}  // namespace deltaguard

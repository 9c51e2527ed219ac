// MERGE, UPDATE and DELETE from Python. deltaguard/_merge.py collects the builder's
// clauses and hands them over in one call; conditions and values are Spark SQL text,
// bound against the table exactly as the SQL statements bind them.

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "deltaguard/contract/parse.h"
#include "deltaguard/dml/merge.h"
#include "deltaguard/dml/update_delete.h"
#include "deltaguard/table/profiles.h"
#include "deltaguard/write/contract_write.h"
#include "py_arrow.h"
#include "py_common.h"
#include "py_convert.h"
#include "py_interrupt.h"
#include "py_schema_error.h"

namespace deltaguard::python {
namespace {

using Sets = std::vector<std::pair<std::string, std::string>>;
/// (kind, condition, set/values, except columns)
using Clause = std::tuple<std::string, std::string, Sets, std::vector<std::string>>;
/// (contract text, its file name for messages, schema object)
using ContractArg = std::tuple<std::string, std::string, std::string>;

void AddClause(MergeBuilder& b, const Clause& clause) {
  const auto& [kind, condition, sets, except] = clause;
  if (kind == "matched_update_all") {
    b.WhenMatchedUpdateAll(condition, except);
  } else if (kind == "matched_update") {
    b.WhenMatchedUpdate(condition, sets);
  } else if (kind == "matched_delete") {
    b.WhenMatchedDelete(condition);
  } else if (kind == "not_matched_insert_all") {
    b.WhenNotMatchedInsertAll(condition, except);
  } else if (kind == "not_matched_insert") {
    b.WhenNotMatchedInsert(condition, sets);
  } else if (kind == "not_matched_by_source_update") {
    b.WhenNotMatchedBySourceUpdate(condition, sets);
  } else if (kind == "not_matched_by_source_delete") {
    b.WhenNotMatchedBySourceDelete(condition);
  } else {
    RaiseError(Error{ErrorCode::kInternal, "unknown MERGE clause kind '" + kind + "'"});
  }
}

nb::dict MergeResultDict(const MergeResult& r) {
  nb::dict d;
  d["version"] = r.version;
  d["num_source_rows"] = r.num_source_rows;
  d["source_spilled_bytes"] = r.source_spilled_bytes;
  d["num_target_rows_inserted"] = r.num_target_rows_inserted;
  d["num_target_rows_updated"] = r.num_target_rows_updated;
  d["num_target_rows_matched_updated"] = r.num_target_rows_matched_updated;
  d["num_target_rows_not_matched_by_source_updated"] =
      r.num_target_rows_not_matched_by_source_updated;
  d["num_target_rows_deleted"] = r.num_target_rows_deleted;
  d["num_target_rows_matched_deleted"] = r.num_target_rows_matched_deleted;
  d["num_target_rows_not_matched_by_source_deleted"] =
      r.num_target_rows_not_matched_by_source_deleted;
  d["num_target_rows_copied"] = r.num_target_rows_copied;
  d["num_output_rows"] = r.num_output_rows;
  d["num_target_files_added"] = r.num_target_files_added;
  d["num_target_files_removed"] = r.num_target_files_removed;
  d["num_target_files_scanned"] = r.num_target_files_scanned;
  d["num_target_files_skipped"] = r.num_target_files_skipped;
  d["num_target_bytes_added"] = r.num_target_bytes_added;
  d["num_target_bytes_removed"] = r.num_target_bytes_removed;
  d["ignored_source_columns"] = r.ignored_source_columns;
  d["added_columns"] = r.added_columns;
  d["widened_columns"] = r.widened_columns;
  d["warnings"] = r.warnings;
  d["commit_attempts"] = r.commit_attempts;
  // The contract summary as write_table's result carries it.
  d["contract"] = r.contract ? nb::module_::import_("json").attr("loads")(
                                   ContractWriteSummaryJson(*r.contract))
                             : nb::none();
  return d;
}

nb::dict DmlResultDict(const DmlResult& r) {
  nb::dict d;
  d["version"] = r.version;
  d["num_updated_rows"] = r.num_updated_rows;
  d["num_deleted_rows"] = r.num_deleted_rows;
  d["num_copied_rows"] = r.num_copied_rows;
  d["num_added_files"] = r.num_added_files;
  d["num_removed_files"] = r.num_removed_files;
  d["num_added_bytes"] = r.num_added_bytes;
  d["num_removed_bytes"] = r.num_removed_bytes;
  d["num_files_scanned"] = r.num_files_scanned;
  d["commit_attempts"] = r.commit_attempts;
  return d;
}

nb::dict Merge(const std::string& path, nb::handle source, const std::string& on,
               const std::string& target_alias, const std::string& source_alias,
               const std::vector<Clause>& clauses, std::optional<bool> schema_evolution,
               const std::map<std::string, std::string>& conf,
               const std::optional<ContractArg>& contract) {
  SessionSettings session = SettingsFromConf(conf);
  InterruptGuard interrupt;
  interrupt.Install(&session);
  BatchSource batches = SourceFromReader("merge source", ImportReader(source));
  const std::shared_ptr<arrow::Schema> source_schema = batches.schema;
  MergeBuilder builder(MakeLocalFileSystem(), path, std::move(batches), on, target_alias,
                       source_alias);
  builder.EvolutionOptionHint("with_schema_evolution()");
  for (const auto& c : clauses) AddClause(builder, c);
  if (schema_evolution) builder.WithSchemaEvolution(*schema_evolution);
  if (contract) {
    const auto& [yaml, file, object] = *contract;
    builder.WithContract(
        std::make_shared<const Contract>(Unwrap(LoadContractText(yaml, file))), object);
  }
  auto r = WithoutGil([&] {
    auto merged = builder.Execute(session);
    if (merged)
      StoreCommitProfile(MakeLocalFileSystem(), path, merged->profile, &merged->warnings);
    return merged;
  });
  interrupt.RaiseIfInterrupted();
  return MergeResultDict(UnwrapWrite(std::move(r), path, source_schema));
}

nb::dict Update(const std::string& path, const Sets& set, const std::string& where,
                const std::map<std::string, std::string>& conf) {
  SessionSettings session = SettingsFromConf(conf);
  InterruptGuard interrupt;
  interrupt.Install(&session);
  std::vector<std::string> warnings;
  auto r = WithoutGil([&] {
    auto updated = UpdateSql(MakeLocalFileSystem(), path, set, where, session);
    if (updated) {
      warnings = updated->warnings;
      StoreCommitProfile(MakeLocalFileSystem(), path, updated->profile, &warnings);
    }
    return updated;
  });
  interrupt.RaiseIfInterrupted();
  nb::dict d = DmlResultDict(Unwrap(std::move(r)));
  d["warnings"] = warnings;
  return d;
}

nb::dict Delete(const std::string& path, const std::string& where,
                const std::map<std::string, std::string>& conf) {
  SessionSettings session = SettingsFromConf(conf);
  InterruptGuard interrupt;
  interrupt.Install(&session);
  std::vector<std::string> warnings;
  auto r = WithoutGil([&] {
    auto deleted = DeleteSql(MakeLocalFileSystem(), path, where, session);
    if (deleted) {
      warnings = deleted->warnings;
      StoreCommitProfile(MakeLocalFileSystem(), path, deleted->profile, &warnings);
    }
    return deleted;
  });
  interrupt.RaiseIfInterrupted();
  nb::dict d = DmlResultDict(Unwrap(std::move(r)));
  d["warnings"] = warnings;
  return d;
}

}  // namespace

void BindDml(nb::module_& m) {
  m.def("merge", &Merge, nb::arg("path"), nb::arg("source"), nb::arg("on"),
        nb::arg("target_alias"), nb::arg("source_alias"), nb::arg("clauses"),
        nb::arg("schema_evolution") = nb::none(),
        nb::arg("conf") = std::map<std::string, std::string>{},
        nb::arg("contract") = nb::none());
  m.def("update", &Update, nb::arg("path"), nb::arg("set"), nb::arg("where"),
        nb::arg("conf") = std::map<std::string, std::string>{});
  m.def("delete", &Delete, nb::arg("path"), nb::arg("where"),
        nb::arg("conf") = std::map<std::string, std::string>{});
}

}  // namespace deltaguard::python

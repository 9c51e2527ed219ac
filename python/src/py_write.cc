// Writes from Python: write_table (append / overwrite / replaceWhere, with the same
// enforcement as `deltaguard write`, optionally routing violating rows to a quarantine
// table) and create_table. Options arrive as plain values from deltaguard/_write.py.

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/contract/parse.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/table/quarantine.h"
#include "deltaguard/table/write.h"
#include "deltaguard/write/contract_write.h"
#include "py_arrow.h"
#include "py_common.h"
#include "py_convert.h"
#include "py_interrupt.h"
#include "py_schema_error.h"

namespace deltaguard::python {
namespace {

nb::dict WriteResultDict(const WriteResult& r) {
  nb::dict d;
  d["version"] = r.version;
  d["skipped"] = r.skipped;
  d["skipped_reason"] = r.skipped_reason;
  d["created"] = r.created;
  d["rows"] = r.rows;
  d["rows_copied"] = r.rows_copied;
  d["files_added"] = r.files_added;
  d["files_removed"] = r.files_removed;
  d["bytes_added"] = r.bytes_added;
  d["schema_changed"] = r.schema_changed;
  d["added_columns"] = r.added_columns;
  d["widened_columns"] = r.widened_columns;
  d["missing_columns"] = r.missing_columns;
  d["commit_attempts"] = r.commit_attempts;
  d["checkpoint_version"] = r.checkpoint_version;
  d["checkpoint_error"] = r.checkpoint_error;
  d["warnings"] = r.warnings;
  // The contract summary as the CLI's `write --output json` prints it.
  d["contract"] = r.contract ? nb::module_::import_("json").attr("loads")(
                                   ContractWriteSummaryJson(*r.contract))
                             : nb::none();
  // The data tests' verdict; "report" is `deltaguard check --format json`'s.
  if (r.check) {
    nb::dict c;
    c["tests"] = r.check->tests;
    c["outcome"] = r.check->outcome;
    c["held"] = r.check->held;
    c["held_reason"] = r.check->held_reason;
    c["report_json"] = r.check->json;
    c["report_text"] = r.check->text;
    d["check"] = c;
  } else {
    d["check"] = nb::none();
  }
  return d;
}

struct WriteArgs {
  std::string mode = "append";
  std::optional<bool> merge_schema;
  bool overwrite_schema = false;
  std::optional<std::string> replace_where;
  std::vector<std::string> partition_by;
  std::map<std::string, std::string> properties;
  std::optional<std::string> txn_app_id;
  std::optional<int64_t> txn_version;
  std::optional<std::string> compression;
  std::optional<int64_t> target_file_size;
  bool checkpoint = true;
  std::optional<std::string> contract_yaml;  ///< the text of the contract file
  std::string contract_file;                 ///< its name, for messages
  std::string contract_object;
  std::optional<std::string> check;       ///< "auto" or a tests file
  std::string on_check_failure = "fail";  ///< fail | warn | quarantine
  std::string check_baseline;
};

WriteOptions ToWriteOptions(const WriteArgs& a) {
  WriteOptions o;
  o.mode = Unwrap(ParseWriteMode(a.mode));
  o.merge_schema = a.merge_schema;
  o.overwrite_schema = a.overwrite_schema;
  o.replace_where = a.replace_where;
  o.partition_by = a.partition_by;
  for (const auto& [k, v] : a.properties) o.properties.emplace_back(k, v);
  o.txn_app_id = a.txn_app_id;
  o.txn_version = a.txn_version;
  if (a.compression) o.file_options.compression = *a.compression;
  if (a.target_file_size) o.file_options.target_file_size_bytes = *a.target_file_size;
  o.checkpoint = a.checkpoint;
  o.merge_option_hint = "merge_schema=True";
  if (a.contract_yaml) {
    o.contract = std::make_shared<const Contract>(
        Unwrap(LoadContractText(*a.contract_yaml, a.contract_file)));
  }
  o.contract_object = a.contract_object;
  if (a.check) {
    WriteCheckOptions c;
    c.tests = *a.check;
    c.baseline = a.check_baseline;
    c.on_failure = a.on_check_failure == "warn"         ? CheckFailureAction::kWarn
                   : a.on_check_failure == "quarantine" ? CheckFailureAction::kQuarantine
                                                        : CheckFailureAction::kFail;
    o.check = c;
  }
  return o;
}

nb::dict Write(const std::string& path, nb::handle data, const WriteArgs& args,
               std::optional<std::string> quarantine,
               const std::map<std::string, std::string>& conf) {
  WriteOptions options = ToWriteOptions(args);
  SessionSettings session = SettingsFromConf(conf);
  BatchSource source = SourceFromReader("Python data", ImportReader(data));
  const std::shared_ptr<arrow::Schema> input_schema = source.schema;
  InterruptGuard interrupt;
  interrupt.Install(&session);
  FileSystemRef fs = MakeLocalFileSystem();
  if (options.check && options.check->on_failure == CheckFailureAction::kQuarantine) {
    options.check->quarantine = quarantine.value_or("");
  }
  if (quarantine) {
    auto r = WithoutGil([&] {
      std::vector<BatchSource> sources;
      sources.push_back(std::move(source));
      return WriteWithQuarantine(fs, path, std::move(sources), options, *quarantine,
                                 session);
    });
    interrupt.RaiseIfInterrupted();
    QuarantineWriteResult q = UnwrapWrite(std::move(r), path, input_schema);
    nb::dict d = WriteResultDict(q.table);
    nb::dict qd;
    qd["table"] = *quarantine;
    qd["version"] = q.quarantine ? q.quarantine->version : -1;
    qd["created"] = q.quarantine_created;
    qd["rows"] = q.quarantined_rows;
    qd["by_constraint"] = q.by_constraint;
    qd["quarantined_at_micros"] = q.quarantined_at_micros;
    d["good_rows"] = q.good_rows;
    d["quarantine"] = qd;
    return d;
  }
  auto r = WithoutGil([&] {
    std::vector<BatchSource> sources;
    sources.push_back(std::move(source));
    return WriteTable(fs, path, std::move(sources), options, session);
  });
  interrupt.RaiseIfInterrupted();
  return WriteResultDict(UnwrapWrite(std::move(r), path, input_schema));
}

nb::dict Create(const std::string& path, const std::string& schema_json,
                std::vector<std::string> partition_by,
                const std::map<std::string, std::string>& properties,
                std::optional<std::string> name, std::optional<std::string> comment,
                bool if_not_exists) {
  CreateTableOptions o;
  o.schema = Unwrap(ParseSchemaJson(schema_json));
  o.partition_columns = std::move(partition_by);
  for (const auto& [k, v] : properties) o.properties.emplace_back(k, v);
  o.name = std::move(name);
  o.description = std::move(comment);
  o.if_not_exists = if_not_exists;
  auto r = WithoutGil([&] { return CreateTable(MakeLocalFileSystem(), path, o); });
  return WriteResultDict(Unwrap(std::move(r)));
}

}  // namespace

void BindWrite(nb::module_& m) {
  nb::class_<WriteArgs>(m, "WriteArgs")
      .def(nb::init<>())
      .def_rw("mode", &WriteArgs::mode)
      .def_rw("merge_schema", &WriteArgs::merge_schema)
      .def_rw("overwrite_schema", &WriteArgs::overwrite_schema)
      .def_rw("replace_where", &WriteArgs::replace_where)
      .def_rw("partition_by", &WriteArgs::partition_by)
      .def_rw("properties", &WriteArgs::properties)
      .def_rw("txn_app_id", &WriteArgs::txn_app_id)
      .def_rw("txn_version", &WriteArgs::txn_version)
      .def_rw("compression", &WriteArgs::compression)
      .def_rw("target_file_size", &WriteArgs::target_file_size)
      .def_rw("checkpoint", &WriteArgs::checkpoint)
      .def_rw("contract_yaml", &WriteArgs::contract_yaml)
      .def_rw("contract_file", &WriteArgs::contract_file)
      .def_rw("contract_object", &WriteArgs::contract_object)
      .def_rw("check", &WriteArgs::check)
      .def_rw("on_check_failure", &WriteArgs::on_check_failure)
      .def_rw("check_baseline", &WriteArgs::check_baseline);
  m.def("write_table", &Write, nb::arg("path"), nb::arg("data"), nb::arg("args"),
        nb::arg("quarantine") = nb::none(),
        nb::arg("conf") = std::map<std::string, std::string>{});
  m.def("create_table", &Create, nb::arg("path"), nb::arg("schema_json"),
        nb::arg("partition_by"), nb::arg("properties"), nb::arg("name") = nb::none(),
        nb::arg("comment") = nb::none(), nb::arg("if_not_exists") = false);
}

}  // namespace deltaguard::python

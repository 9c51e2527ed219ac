// SQL from Python: a native Session (warehouse, SET state, temp views, registered
// Arrow data) whose statements return Arrow rows, exactly as `deltaguard sql` runs them.

#include <arrow/table.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/sql/session.h"
#include "py_arrow.h"
#include "py_common.h"
#include "py_convert.h"
#include "py_interrupt.h"

namespace deltaguard::python {
namespace {

/// One statement's outcome with its rows already read (a script moves on to the next
/// statement only after the rows of this one are consumed).
struct Outcome {
  std::string kind;
  std::string message;
  std::vector<std::string> warnings;
  std::shared_ptr<arrow::Table> rows;  ///< null: the statement has no rows
  std::optional<int64_t> version;      ///< committed version of a write
};

Result<Outcome> Collect(StatementResult& r) {
  Outcome out{r.kind, r.message, r.warnings, nullptr, std::nullopt};
  if (r.committed_version) {
    out.version = r.committed_version;
  } else if (r.write && r.write->version >= 0) {
    out.version = r.write->version;
  }
  DELTA_ASSIGN_OR_RETURN(out.rows, CollectRows(r));
  return out;
}

class NativeSession {
 public:
  NativeSession(const std::string& warehouse,
                const std::map<std::string, std::string>& conf) {
    SessionOptions options;
    options.warehouse = warehouse;
    options.settings = SettingsFromConf(conf);
    interrupt_.Install(&options.settings);
    session_ = std::make_unique<Session>(std::move(options));
  }

  /// Every statement of `script` in order; returns the outcomes (rows of the last
  /// statement are what dg.sql returns). Stops at the first error, as the CLI does.
  nb::list Execute(const std::string& script) {
    std::vector<Outcome> outcomes;
    auto st = WithoutGil([&] {
      return session_->ExecuteScript(script,
                                     [&](const Statement&, StatementResult& r) -> Status {
                                       DELTA_ASSIGN_OR_RETURN(Outcome o, Collect(r));
                                       outcomes.push_back(std::move(o));
                                       return OkStatus();
                                     });
    });
    interrupt_.RaiseIfInterrupted();
    Check(st);
    nb::list out;
    for (auto& o : outcomes) {
      nb::object rows = nb::none();
      if (o.rows) {
        auto reader = std::make_shared<arrow::TableBatchReader>(o.rows);
        rows = ExportReaderCapsule(reader);
      }
      out.append(nb::make_tuple(o.kind, o.message, o.warnings, rows, o.version));
    }
    return out;
  }

  void Register(const std::string& name, nb::handle data) {
    auto reader = ImportReader(data);
    auto table = WithoutGil([&]() -> Result<std::shared_ptr<arrow::Table>> {
      DELTA_ARROW_ASSIGN_OR_RETURN(auto t, reader->ToTable(), ErrorCode::kInvalidArgument,
                                   "reading the data of view '" + name + "'");
      return t;
    });
    Check(session_->RegisterDataView(name, Unwrap(std::move(table))));
  }

  void Unregister(const std::string& name) { Check(session_->DropDataView(name)); }

  std::string current_database() const { return session_->current_database(); }

 private:
  InterruptGuard interrupt_;  // before session_: its check outlives no call
  std::unique_ptr<Session> session_;
};

}  // namespace

void BindSql(nb::module_& m) {
  nb::class_<NativeSession>(m, "NativeSession")
      .def(nb::init<const std::string&, const std::map<std::string, std::string>&>(),
           nb::arg("warehouse"), nb::arg("conf"))
      .def("execute", &NativeSession::Execute, nb::arg("script"))
      .def("register", &NativeSession::Register, nb::arg("name"), nb::arg("data"))
      .def("unregister", &NativeSession::Unregister, nb::arg("name"))
      .def_prop_ro("current_database", &NativeSession::current_database);
}

}  // namespace deltaguard::python

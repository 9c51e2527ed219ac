// Incremental ingestion from Python (docs/ingest.md "Python"): `dg.ingest` runs the
// library's RunIngest, as `deltaguard ingest` does, and returns each batch's progress
// as the same JSON objects `--output json` prints.

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <string>
#include <vector>

#include "deltaguard/ingest/ingest.h"
#include "py_common.h"
#include "py_interrupt.h"

namespace deltaguard::python {
namespace {

std::vector<std::string> Ingest(
    const std::string& source, const std::string& table, const std::string& checkpoint,
    const std::map<std::string, std::string>& options, const std::string& trigger,
    std::optional<std::string> check, const std::string& on_check_failure,
    std::optional<std::string> quarantine, std::optional<std::string> baseline) {
  IngestRequest request;
  request.source = source;
  request.table = table;
  request.checkpoint = checkpoint;
  std::vector<std::pair<std::string, std::string>> pairs(options.begin(), options.end());
  request.options = Unwrap(ParseIngestOptions(pairs));
  request.trigger = Unwrap(ParseIngestTrigger(trigger, &request.interval_ms));
  if (check) {
    WriteCheckOptions c;
    c.tests = *check;
    c.baseline = baseline.value_or("");
    if (on_check_failure == "warn") {
      c.on_failure = CheckFailureAction::kWarn;
    } else if (on_check_failure == "quarantine") {
      c.on_failure = CheckFailureAction::kQuarantine;
      c.quarantine = quarantine.value_or("");
    } else if (on_check_failure != "fail") {
      RaiseError(
          MakeError(ErrorCode::kInvalidArgument,
                    "on_check_failure must be fail, warn or a Quarantine, got '{}'",
                    on_check_failure),
          nb::dict());
    }
    request.check = c;
  }
  InterruptGuard interrupt;
  interrupt.Install(&request.session);
  // Ctrl-C also ends a continuous run while it waits for files.
  auto check_interrupt = request.session.interrupt_check;
  request.stop_requested = [check_interrupt] { return !check_interrupt(); };
  std::vector<std::string> batches;
  auto result = WithoutGil([&] {
    return RunIngest(MakeLocalFileSystem(), request, [&](const BatchProgress& p) {
      batches.push_back(BatchProgressJson(p));
    });
  });
  interrupt.RaiseIfInterrupted();
  Unwrap(std::move(result));
  return batches;
}

}  // namespace

void BindIngest(nb::module_& m) {
  m.def("ingest", &Ingest, nb::arg("source"), nb::arg("table"), nb::arg("checkpoint"),
        nb::arg("options"), nb::arg("trigger") = "available-now",
        nb::arg("check") = nb::none(), nb::arg("on_check_failure") = "fail",
        nb::arg("quarantine") = nb::none(), nb::arg("baseline") = nb::none());
}

}  // namespace deltaguard::python

// Column profiles from Python (docs/profiles.md "Python"): the profile of any Arrow
// producer, a table's stored profiles and backfill, all through the library calls the
// CLI makes (quality/profile.h, table/profiles.h) and rendered by the same JSON
// (quality/profile_report.h), so `dg.profile`, `Table.profile` and `deltaguard profile
// --show --format json` agree.

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/quality/profile.h"
#include "deltaguard/quality/profile_report.h"
#include "deltaguard/table/data_check.h"
#include "deltaguard/table/profiles.h"
#include "py_arrow.h"
#include "py_common.h"

namespace deltaguard::python {
namespace {

/// The profile of every batch of `data`, as ProfileToJson.
std::string ProfileData(nb::handle data) {
  auto reader = ImportReader(data);
  auto profile = WithoutGil([&]() -> Result<TableProfile> {
    DELTA_ASSIGN_OR_RETURN(Profiler profiler, Profiler::Make(reader->schema()));
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      DELTA_ARROW_RETURN_NOT_OK(reader->ReadNext(&batch), ErrorCode::kInvalidArgument,
                                "reading the data to profile");
      if (!batch) break;
      DELTA_RETURN_IF_ERROR(profiler.Add(*batch));
    }
    return profiler.Snapshot();
  });
  return ProfileToJson(Unwrap(std::move(profile)));
}

std::string ReadTableProfiles(const std::string& path, int64_t from, int64_t to) {
  auto profiles =
      WithoutGil([&] { return ReadProfiles(MakeLocalFileSystem(), path, from, to); });
  return ProfilesToJson(Unwrap(std::move(profiles)));
}

nb::dict Backfill(const std::string& path, int64_t from, int64_t to) {
  auto done =
      WithoutGil([&] { return BackfillProfiles(MakeLocalFileSystem(), path, from, to); });
  BackfillResult r = Unwrap(std::move(done));
  nb::dict d;
  d["profiled"] = r.profiled;
  d["present"] = r.present;
  d["no_data"] = r.no_data;
  d["unavailable"] = r.unavailable;
  return d;
}

/// `deltaguard check` as its JSON report (`format` "json"), or another rendering.
nb::tuple RunCheck(const std::string& path, std::optional<int64_t> version,
                   std::optional<std::string> baseline, const std::string& format,
                   std::optional<std::string> tests, const std::string& contract_object) {
  DataCheckOptions options;
  options.version = version;
  if (baseline) options.baseline = Unwrap(ParseBaselineSpec(*baseline));
  if (tests) {
    auto suite = WithoutGil(
        [&] { return LoadDataTests(*MakeLocalFileSystem(), *tests, contract_object); });
    options.suite = std::make_shared<const DataTestSuite>(Unwrap(std::move(suite)));
  }
  const CheckReportFormat fmt = Unwrap(ParseCheckReportFormat(format));
  auto report =
      WithoutGil([&] { return CheckTableData(MakeLocalFileSystem(), path, options); });
  CheckReport r = Unwrap(std::move(report));
  return nb::make_tuple(RenderCheckReport(r, CheckReportFormat::kJson),
                        RenderCheckReport(r, fmt));
}

}  // namespace

void BindProfile(nb::module_& m) {
  m.def("check_table", &RunCheck, nb::arg("path"), nb::arg("version") = nb::none(),
        nb::arg("baseline") = nb::none(), nb::arg("format") = "text",
        nb::arg("tests") = nb::none(), nb::arg("contract_object") = "");
  m.def("profile_data", &ProfileData, nb::arg("data"));
  m.def("read_profiles", &ReadTableProfiles, nb::arg("path"), nb::arg("start") = 0,
        nb::arg("end") = -1);
  m.def("backfill_profiles", &Backfill, nb::arg("path"), nb::arg("start") = 0,
        nb::arg("end") = -1);
}

}  // namespace deltaguard::python

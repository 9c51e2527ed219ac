// Data contracts from Python (docs/contracts.md "Python"): load, lint, test, diff and
// init through the library calls the CLI makes, with the CLI's renderings; the package
// builds typed results from the JSON forms.

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/contract/diff.h"
#include "deltaguard/contract/lint.h"
#include "deltaguard/contract/parse.h"
#include "deltaguard/sql/contract_sql.h"
#include "deltaguard/table/contract_apply.h"
#include "deltaguard/table/contract_init.h"
#include "py_common.h"
#include "py_table.h"

namespace deltaguard::python {
namespace {

struct NativeContract {
  Contract contract;
  std::string text;
  std::vector<ContractDiagnostic> warnings;
};

struct NativeLint {
  std::vector<LintedFile> files;
};

struct NativeContractTest {
  ContractTestReport report;
};

struct NativeContractDiff {
  ContractDiff diff;
};

NativeContract Load(const std::string& text, const std::string& file) {
  NativeContract out;
  out.contract = Unwrap(LoadContractText(text, file, &out.warnings));
  out.text = text;
  return out;
}

std::string RenderFormat(const std::string& format) {
  std::string f = format;
  for (auto& c : f) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (f != "text" && f != "json" && f != "junit" && f != "github") {
    RaiseError(
        Error{ErrorCode::kInvalidArgument,
              "unknown format '" + format + "' (one of text, json, junit, github)"});
  }
  return f;
}

}  // namespace

void BindContract(nb::module_& m) {
  nb::class_<NativeContract>(m, "NativeContract")
      .def_prop_ro("id", [](const NativeContract& c) { return c.contract.id; })
      .def_prop_ro("name", [](const NativeContract& c) { return c.contract.name; })
      .def_prop_ro("version", [](const NativeContract& c) { return c.contract.version; })
      .def_prop_ro("status", [](const NativeContract& c) { return c.contract.status; })
      .def_prop_ro("file", [](const NativeContract& c) { return c.contract.file; })
      .def_prop_ro("hash", [](const NativeContract& c) { return c.contract.hash; })
      .def_prop_ro("text", [](const NativeContract& c) { return c.text; })
      .def_prop_ro("layer",
                   [](const NativeContract& c) {
                     return std::string(MedallionLayerName(c.contract.layer));
                   })
      .def_prop_ro(
          "compatibility",
          [](const NativeContract& c) {
            return std::string(CompatModeName(EffectiveCompatibility(c.contract)));
          })
      .def_prop_ro("objects",
                   [](const NativeContract& c) {
                     std::vector<std::string> out;
                     for (const auto& o : c.contract.schema) out.push_back(o.name);
                     return out;
                   })
      .def_prop_ro("warnings", [](const NativeContract& c) {
        std::vector<std::string> out;
        for (const auto& w : c.warnings) out.push_back(w.ToString());
        return out;
      });

  nb::class_<NativeLint>(m, "NativeLint")
      .def("render",
           [](const NativeLint& l, const std::string& format) {
             std::string f = RenderFormat(format);
             if (f == "json") return LintJson(l.files);
             if (f == "junit") return LintJunit(l.files);
             if (f == "github") return LintGithub(l.files);
             return LintText(l.files);
           })
      .def_prop_ro("valid", [](const NativeLint& l) {
        for (const auto& f : l.files) {
          if (!f.valid()) return false;
        }
        return true;
      });

  nb::class_<NativeContractTest>(m, "NativeContractTest")
      .def("render", [](const NativeContractTest& t, const std::string& format) {
        std::string f = RenderFormat(format);
        if (f == "json") return ContractTestJson(t.report);
        if (f == "junit") return ContractTestJunit(t.report);
        if (f == "github") return ContractTestGithub(t.report);
        return ContractTestText(t.report);
      });

  nb::class_<NativeContractDiff>(m, "NativeContractDiff")
      .def("render", [](const NativeContractDiff& d, const std::string& format) {
        std::string f = RenderFormat(format);
        if (f == "json") return ContractDiffJson(d.diff);
        if (f == "junit") return ContractDiffJunit(d.diff);
        if (f == "github") return ContractDiffGithub(d.diff);
        return ContractDiffText(d.diff);
      });

  m.def("contract_load", &Load, nb::arg("text"), nb::arg("file"));
  m.def(
      "contract_lint",
      [](const std::vector<std::pair<std::string, std::string>>& files) {
        NativeLint out;
        for (const auto& [text, file] : files) {
          out.files.push_back(LintContractText(text, file));
        }
        return out;
      },
      nb::arg("files"));
  m.def(
      "contract_test",
      [](const NativeContract& c, const NativeTable& t, const std::string& object) {
        const ContractObject* o = Unwrap(c.contract.Object(object));
        SessionOptions session;
        session.fs = t.fs;
        return NativeContractTest{Unwrap(WithoutGil(
            [&] { return TestContractWithSql(c.contract, *o, t.snapshot, session); }))};
      },
      nb::arg("contract"), nb::arg("table"), nb::arg("object") = "");
  m.def(
      "contract_diff",
      [](const NativeContract& a, const NativeContract& b,
         std::optional<std::string> mode) {
        std::optional<CompatMode> m;
        if (mode) m = Unwrap(ParseCompatMode(*mode));
        return NativeContractDiff{Unwrap(DiffContracts(a.contract, b.contract, m))};
      },
      nb::arg("before"), nb::arg("after"), nb::arg("mode") = nb::none());
  m.def(
      "contract_apply",
      [](const NativeContract& c, const std::string& path, const std::string& object) {
        const ContractObject* o = Unwrap(c.contract.Object(object));
        auto r = Unwrap(WithoutGil([&] {
          return ApplyContract(MakeLocalFileSystem(), path, c.contract, *o, c.text);
        }));
        nb::dict d;
        d["version"] = r.version;
        d["changes"] = r.changes;
        return d;
      },
      nb::arg("contract"), nb::arg("path"), nb::arg("object") = "");
  m.def(
      "contract_init",
      [](const NativeTable& t, std::optional<std::string> layer,
         std::optional<std::string> id, std::optional<std::string> name,
         std::optional<std::string> version, std::optional<int64_t> sample_rows) {
        ContractInitOptions options;
        if (layer) options.layer = Unwrap(ParseMedallionLayer(*layer));
        if (id) options.id = *id;
        if (name) options.name = *name;
        if (version) {
          (void)Unwrap(ParseSemVer(*version));
          options.version = *version;
        }
        if (sample_rows) options.sample_rows = *sample_rows;
        return Unwrap(WithoutGil([&] { return InitContract(*t.snapshot, options); }));
      },
      nb::arg("table"), nb::arg("layer") = nb::none(), nb::arg("id") = nb::none(),
      nb::arg("name") = nb::none(), nb::arg("version") = nb::none(),
      nb::arg("sample_rows") = nb::none());
}

}  // namespace deltaguard::python

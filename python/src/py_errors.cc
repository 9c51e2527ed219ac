// Library errors as Python exceptions. The classes live in deltaguard/errors.py, so
// they can be documented, subclassed and caught without importing the native module;
// here an Error is handed to errors._from_native(code, message) which picks the class.

#include <Python.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "deltaguard/util/result.h"
#include "py_common.h"

namespace deltaguard::python {
namespace {

const char* CodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kAlreadyExists:
      return "already_exists";
    case ErrorCode::kCorruptLog:
      return "corrupt_log";
    case ErrorCode::kCorruptData:
      return "corrupt_data";
    case ErrorCode::kUnsupportedFeature:
      return "unsupported_feature";
    case ErrorCode::kSchemaMismatch:
      return "schema_mismatch";
    case ErrorCode::kConstraintViolation:
      return "constraint_violation";
    case ErrorCode::kCommitConflict:
      return "commit_conflict";
    case ErrorCode::kIOError:
      return "io_error";
    case ErrorCode::kParseError:
      return "parse_error";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace

void RaiseError(const Error& error) { RaiseError(error, nb::dict()); }

void RaiseError(const Error& error, nb::dict details) {
  // Error::details: a repeated key ("sample_row") becomes a list of its values.
  for (const auto& [key, value] : error.details) {
    nb::str k(key.c_str());
    if (key == "sample_row") {
      if (!details.contains(k)) details[k] = nb::list();
      nb::list(details[k]).append(nb::str(value.c_str()));
    } else {
      details[k] = nb::str(value.c_str());
    }
  }
  nb::object errors = nb::module_::import_("deltaguard.errors");
  nb::object exc =
      errors.attr("_from_native")(CodeName(error.code), error.ToString(), details);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw nb::python_error();
}

void BindErrors(nb::module_& m) {
  // The exit code the CLI returns for each error class (tools/cli/cli_common.cc), so
  // Python callers can mirror the CLI's contract.
  m.def("error_code_names", []() {
    nb::list out;
    for (int c = 0; c <= static_cast<int>(ErrorCode::kInternal); ++c) {
      auto code = static_cast<ErrorCode>(c);
      out.append(nb::make_tuple(CodeName(code), std::string(ErrorCodePrefix(code))));
    }
    return out;
  });
}

}  // namespace deltaguard::python

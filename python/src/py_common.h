/// \file python/src/py_common.h
/// What every binding file shares: library errors become the Python exceptions of
/// deltaguard.errors (same class per error code, same message as the CLI), and long
/// calls run with the GIL released.
#pragma once

#include <nanobind/nanobind.h>

#include <utility>

#include "deltaguard/util/result.h"

namespace deltaguard::python {

namespace nb = nanobind;

/// Raise the deltaguard.errors exception for `error` (needs the GIL).
[[noreturn]] void RaiseError(const Error& error);
/// The same with attributes for the exception (`details` keys become attributes).
[[noreturn]] void RaiseError(const Error& error, nb::dict details);

template <typename T>
T Unwrap(Result<T> result) {
  if (!result) RaiseError(result.error());
  return std::move(*result);
}

inline void Check(const Status& status) {
  if (!status) RaiseError(status.error());
}

/// Run `fn` without the GIL: no Python object may be touched inside. Returns its result.
template <typename Fn>
auto WithoutGil(Fn&& fn) {
  nb::gil_scoped_release release;
  return fn();
}

void BindErrors(nb::module_& m);
void BindArrow(nb::module_& m);
void BindSchema(nb::module_& m);
void BindTable(nb::module_& m);
void BindWrite(nb::module_& m);
void BindDml(nb::module_& m);
void BindSql(nb::module_& m);
void BindDrift(nb::module_& m);
void BindContract(nb::module_& m);
void BindProfile(nb::module_& m);
void BindIngest(nb::module_& m);

}  // namespace deltaguard::python

/// \file python/src/py_schema_error.h
/// A write's schema error with what Python's SchemaMismatchError carries besides the
/// message: the table's schema, the input's schema and the differences between them
/// (schema/schema_diff.h), computed from the same two schemas the write compared.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>

#include "deltaguard/util/result.h"
#include "py_common.h"

namespace deltaguard::python {

/// Unwrap `result`; a kSchemaMismatch error is raised with the schemas of the table at
/// `path` (when it exists) and of `input`.
template <typename T>
T UnwrapWrite(Result<T> result, const std::string& path,
              const std::shared_ptr<arrow::Schema>& input);

[[noreturn]] void RaiseWriteError(const Error& error, const std::string& path,
                                  const std::shared_ptr<arrow::Schema>& input);

template <typename T>
T UnwrapWrite(Result<T> result, const std::string& path,
              const std::shared_ptr<arrow::Schema>& input) {
  if (!result) RaiseWriteError(result.error(), path, input);
  return std::move(*result);
}

}  // namespace deltaguard::python

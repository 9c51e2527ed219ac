/// \file deltaguard/exec/input_test_util_internal.h
/// Test helper for the input tests of exec (input_source_test.cc,
/// input_text_checks_test.cc; tests only): read every batch of an input file.
#pragma once

#include <arrow/record_batch.h>

#include <memory>
#include <string>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/input_source.h"
#include "deltaguard/util/result.h"

namespace deltaguard::testing {

/// Inspect and read every batch of `path`; the first error is returned. `inspected`,
/// when given, receives what InspectInput found.
inline Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> ReadAll(
    const std::string& path, const InputOptions& options,
    InputFile* inspected = nullptr) {
  DELTA_ASSIGN_OR_RETURN(InputFile file, InspectInput(path, options));
  if (inspected != nullptr) *inspected = file;
  DELTA_ASSIGN_OR_RETURN(auto reader, OpenInput(file, options));
  std::vector<std::shared_ptr<arrow::RecordBatch>> out;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status st = reader->ReadNext(&batch);
    if (!st.ok()) return internal::FromArrowStatus(st, ErrorCode::kInternal, "read");
    if (batch == nullptr) break;
    out.push_back(batch);
  }
  return out;
}

}  // namespace deltaguard::testing

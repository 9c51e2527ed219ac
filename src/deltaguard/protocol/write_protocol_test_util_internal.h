/// \file deltaguard/protocol/write_protocol_test_util_internal.h
/// Test helpers of the write_protocol tests (write_protocol_test.cc,
/// write_protocol_check_test.cc; tests only): schemas from DDL, a column with metadata,
/// legacy and table-features protocols.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/protocol/protocol.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/schema/ddl.h"
#include "testing/schema_util.h"

namespace deltaguard::testing {

using Names = std::vector<std::string>;

/// A one-column schema whose column carries metadata `key` = raw JSON `raw`.
inline SchemaRef WithMetadata(std::string_view key, std::string raw) {
  StructField f{"c", DataType::Long(), true, FieldMetadata().With(key, std::move(raw))};
  return std::make_shared<const StructType>(std::vector<StructField>{f});
}

/// A protocol without table features.
inline Protocol Legacy(int32_t r, int32_t w) {
  return Protocol{r, w, std::nullopt, std::nullopt};
}

/// A table-features protocol (writer version 7).
inline Protocol Tf(int32_t r, std::optional<Names> readers, Names writers) {
  return Protocol{r, 7, std::move(readers), std::move(writers)};
}

}  // namespace deltaguard::testing

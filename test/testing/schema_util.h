/// \file test/testing/schema_util.h
/// Schema helpers shared by the unit tests of every layer (no Arrow; header-only;
/// tests only): a schema from DDL, a field, column-mapping metadata.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/schema/ddl.h"

namespace deltaguard::testing {

/// A schema from a DDL column list ("a INT, b STRING"); a parse error fails the test
/// (and gives an empty schema).
inline SchemaRef Ddl(std::string_view text) {
  auto schema = ParseDdlSchema(text);
  EXPECT_TRUE(schema) << text << ": " << schema.error().ToString();
  return schema ? *schema : std::make_shared<StructType>(std::vector<StructField>{});
}

inline StructField Field(std::string name, DataTypeRef type, bool nullable = true,
                         FieldMetadata md = {}) {
  return StructField{std::move(name), std::move(type), nullable, std::move(md)};
}

/// Column-mapping metadata: `delta.columnMapping.id` and `.physicalName`.
inline FieldMetadata Mapping(int id, const std::string& physical) {
  return FieldMetadata(
      {{std::string(kColumnMappingIdKey), std::to_string(id)},
       {std::string(kColumnMappingPhysicalNameKey), "\"" + physical + "\""}});
}

}  // namespace deltaguard::testing

namespace deltaguard {
using testing::Ddl;  // named in tests without a using block (testing/matchers.h)
}  // namespace deltaguard

/// \file deltaguard/schema/data_type.h
/// The Delta type system: primitive types, decimal, struct, array and map, plus field
/// metadata. Types are immutable and shared (DataTypeRef); a table schema is a
/// StructType.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

enum class TypeKind : uint8_t {
  kByte,
  kShort,
  kInteger,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kString,
  kBinary,
  kBoolean,
  kDate,
  kTimestamp,
  kTimestampNtz,
  kVariant,
  kVoid,
  kStruct,
  kArray,
  kMap,
};

class DataType;
class StructType;
using DataTypeRef = std::shared_ptr<const DataType>;
using SchemaRef = std::shared_ptr<const StructType>;

/// Field metadata: an ordered list of (key, raw JSON value text) pairs. Values are kept
/// as the exact JSON text found in the log so that a schema round-trips byte-for-byte.
/// Invariant: keys are unique.
class FieldMetadata {
 public:
  using Entry = std::pair<std::string, std::string>;  // key, raw JSON value

  FieldMetadata() = default;
  explicit FieldMetadata(std::vector<Entry> entries) : entries_(std::move(entries)) {}

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  /// Raw JSON text of `key`, or nullptr.
  const std::string* FindRaw(std::string_view key) const;
  /// The value of `key` when it is a JSON string (unescaped).
  std::optional<std::string> GetString(std::string_view key) const;
  /// The value of `key` when it is a JSON integer.
  std::optional<int64_t> GetInt(std::string_view key) const;
  /// Return a copy with `key` set to `raw_json` (replacing in place, or appended).
  FieldMetadata With(std::string_view key, std::string raw_json) const;
  FieldMetadata Without(std::string_view key) const;

  bool operator==(const FieldMetadata& other) const = default;

 private:
  std::vector<Entry> entries_;
};

/// Well-known metadata keys (PROTOCOL.md "Column Mapping", "Type Widening", invariants).
inline constexpr std::string_view kColumnMappingIdKey = "delta.columnMapping.id";
inline constexpr std::string_view kColumnMappingPhysicalNameKey =
    "delta.columnMapping.physicalName";
inline constexpr std::string_view kTypeChangesKey = "delta.typeChanges";
inline constexpr std::string_view kInvariantsKey = "delta.invariants";
inline constexpr std::string_view kCommentKey = "comment";

class DataType {
 public:
  virtual ~DataType() = default;
  TypeKind kind() const { return kind_; }

  /// The Delta JSON type name for primitives ("integer", "decimal(10,2)",
  /// "timestamp_ntz"); "struct"/"array"/"map" for complex types.
  virtual std::string TypeName() const;
  /// Human/SQL-style rendering, e.g. "struct<a: integer, b: array<string>>" (used in
  /// messages and `describe`).
  virtual std::string ToString() const;
  virtual bool Equals(const DataType& other) const;

  bool is_primitive() const { return kind_ < TypeKind::kStruct; }
  bool is_nested() const { return !is_primitive(); }
  bool is_integral() const;  ///< byte, short, integer, long
  bool is_numeric() const;   ///< integral, float, double, decimal

  // Shared singletons for the parameterless types.
  static DataTypeRef Byte();
  static DataTypeRef Short();
  static DataTypeRef Integer();
  static DataTypeRef Long();
  static DataTypeRef Float();
  static DataTypeRef Double();
  static DataTypeRef String();
  static DataTypeRef Binary();
  static DataTypeRef Boolean();
  static DataTypeRef Date();
  static DataTypeRef Timestamp();
  static DataTypeRef TimestampNtz();
  static DataTypeRef Variant();
  static DataTypeRef Void();

  /// Parse a primitive type name as written in schema JSON ("long", "decimal(10, 2)").
  static Result<DataTypeRef> FromTypeName(std::string_view name);

 protected:
  explicit DataType(TypeKind kind) : kind_(kind) {}

 private:
  TypeKind kind_;
};

bool operator==(const DataType& a, const DataType& b);

/// Width order of the integral types: byte 1, short 2, integer 3, long 4; 0 otherwise.
int IntegralRank(TypeKind kind);

class DecimalType final : public DataType {
 public:
  static constexpr int kMaxPrecision = 38;
  /// REQUIRES: 1 <= precision <= 38, 0 <= scale <= precision (use Make for user input).
  DecimalType(int precision, int scale)
      : DataType(TypeKind::kDecimal), precision_(precision), scale_(scale) {}
  static Result<DataTypeRef> Make(int precision, int scale);

  int precision() const { return precision_; }
  int scale() const { return scale_; }
  std::string TypeName() const override;
  std::string ToString() const override { return TypeName(); }
  bool Equals(const DataType& other) const override;

 private:
  int precision_;
  int scale_;
};

struct StructField {
  std::string name;
  DataTypeRef type;
  bool nullable = true;
  FieldMetadata metadata;

  /// `delta.columnMapping.id`, when present.
  std::optional<int64_t> column_mapping_id() const;
  /// `delta.columnMapping.physicalName`, when present.
  std::optional<std::string> physical_name() const;
  std::optional<std::string> comment() const;

  bool Equals(const StructField& other) const;
};

class StructType final : public DataType {
 public:
  explicit StructType(std::vector<StructField> fields)
      : DataType(TypeKind::kStruct), fields_(std::move(fields)) {}

  const std::vector<StructField>& fields() const { return fields_; }
  size_t num_fields() const { return fields_.size(); }
  const StructField& field(size_t i) const { return fields_[i]; }

  /// Index of the field named `name` (exact match), or -1.
  int FieldIndex(std::string_view name) const;
  /// Index by case-insensitive match (Delta column names are case-insensitive), or -1.
  int FieldIndexCaseInsensitive(std::string_view name) const;
  /// The field at a dotted path like {"a","b"} through nested structs, or nullptr.
  const StructField* FindPath(const std::vector<std::string>& path,
                              bool case_sensitive = false) const;

  std::string TypeName() const override { return "struct"; }
  std::string ToString() const override;
  bool Equals(const DataType& other) const override;

 private:
  std::vector<StructField> fields_;
};

class ArrayType final : public DataType {
 public:
  ArrayType(DataTypeRef element_type, bool contains_null)
      : DataType(TypeKind::kArray),
        element_type_(std::move(element_type)),
        contains_null_(contains_null) {}
  const DataTypeRef& element_type() const { return element_type_; }
  bool contains_null() const { return contains_null_; }
  std::string TypeName() const override { return "array"; }
  std::string ToString() const override;
  bool Equals(const DataType& other) const override;

 private:
  DataTypeRef element_type_;
  bool contains_null_;
};

class MapType final : public DataType {
 public:
  MapType(DataTypeRef key_type, DataTypeRef value_type, bool value_contains_null)
      : DataType(TypeKind::kMap),
        key_type_(std::move(key_type)),
        value_type_(std::move(value_type)),
        value_contains_null_(value_contains_null) {}
  const DataTypeRef& key_type() const { return key_type_; }
  const DataTypeRef& value_type() const { return value_type_; }
  bool value_contains_null() const { return value_contains_null_; }
  std::string TypeName() const override { return "map"; }
  std::string ToString() const override;
  bool Equals(const DataType& other) const override;

 private:
  DataTypeRef key_type_;
  DataTypeRef value_type_;
  bool value_contains_null_;
};

/// The first pair (i < j) of fields whose names are equal case-insensitively, or nullopt.
/// Delta requires unique names at every struct level (PROTOCOL.md "Schema Serialization
/// Format": column names are case-insensitive).
std::optional<std::pair<size_t, size_t>> FindDuplicateFieldName(
    const std::vector<StructField>& fields);

/// Check a schema built in code (not parsed): names unique case-insensitively at every
/// struct level, including structs inside arrays and maps. kSchemaMismatch names the
/// duplicate and its path.
Status ValidateFieldNames(const StructType& schema);

}  // namespace deltaguard

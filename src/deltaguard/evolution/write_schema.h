/// \file deltaguard/evolution/write_schema.h
/// Schema enforcement and schema evolution for writes into an existing table
/// (`ResolveWriteSchema`) and the schema of a table created from data
/// (`SchemaForNewTable`). Pure functions on Delta types: the caller converts the input
/// data's schema to Delta types first and casts the data afterwards.
///
/// Rules (docs/decisions.md §1, §2 and §6; Spark's behaviour in docs/spark_semantics.md
/// §5.2-5.4, §5.7):
///  1. Matching is by name, case-insensitively, at every depth: top-level columns, struct
///     fields, structs inside array elements and map keys/values. Matched fields keep the
///     table's spelling. Input names that differ only by case from each other are
///     kSchemaMismatch "DELTA_DUPLICATE_COLUMNS_FOUND".
///  2. Input nullability is ignored (Spark makes the data schema nullable, §5.2 step 1);
///     NOT NULL is checked on values by the caller.
///  3. A field the table lacks (any depth): without `merge_schema` kSchemaMismatch
///     "DELTA_METADATA_MISMATCH" naming all such fields, the table and the option that
///     lets them through. With it, appended at the end of its struct in input order,
///     nullable at every depth (fields, array elements, map values), without
///     column-mapping or typeChanges metadata (the caller assigns column-mapping ids).
///     A new field whose type is or contains void (an all-null column with no type) is
///     refused: deltaguard never adds an untyped column (Spark adds it as `void`).
///  4. Types, for primitives (nested types recurse; a struct/array/map never matches a
///     different kind):
///     - IsLosslessWriteCast(input, table): accepted, the table is unchanged and the
///       caller casts the values (decision 2; Spark's DataFrame save refuses int->long);
///     - else merge_schema && allow_type_widening && IsTypeWideningSupported(table,
///       input): the table type becomes the input type and the nearest ancestor field
///       gets a `delta.typeChanges` entry (§4.2, fieldPath through arrays/maps);
///     - else kSchemaMismatch "DELTA_FAILED_TO_MERGE_FIELDS: Failed to merge fields
///       '<table path>' and '<input path>'" naming both types, what is cast, and how to
///       enable type widening when it would allow the change.
///  5. An input field of type void matches any table field (all values are NULL; a NOT
///     NULL column then fails on values, checked by the caller).
///  6. A table field absent from the input is written as NULL, except a NOT NULL field
///     (at any depth, under a parent struct present in the input): kConstraintViolation
///     "DELTA_MISSING_NOT_NULL_COLUMN_VALUE".
///  7. Existing fields keep their position, nullability and metadata. Every
///     kSchemaMismatch / kConstraintViolation message ends with FormatSchemaComparison.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

struct WriteSchemaOptions {
  /// mergeSchema / autoMerge / WITH SCHEMA EVOLUTION: add new fields (rule 3).
  bool merge_schema = false;
  /// The table has delta.enableTypeWidening=true; effective only with merge_schema.
  bool allow_type_widening = false;
  /// How the user enables merging in their interface, e.g. "--merge-schema"; shown in
  /// errors next to the generic word "mergeSchema".
  std::string option_hint;
};

struct WriteSchemaResolution {
  /// The table schema after the write: the table's own object when unchanged.
  SchemaRef table_schema;
  bool changed = false;
  /// Dotted paths of added fields, e.g. "coupon", "customer.tier", "items.element.sku".
  std::vector<std::string> added_columns;
  /// "qty: integer -> long", "scores.element: integer -> long".
  std::vector<std::string> widened_columns;
  /// Table fields absent from the input (written as NULL), dotted paths.
  std::vector<std::string> missing_columns;
};

/// Check `input` against `table` and compute the table schema after the write (rules
/// above). `table` is the full table schema (data and partition columns); `input` is the
/// input data's schema converted to Delta types. `table_name` is used in messages.
Result<WriteSchemaResolution> ResolveWriteSchema(const SchemaRef& table,
                                                 const StructType& input,
                                                 const WriteSchemaOptions& options,
                                                 std::string_view table_name);

/// The schema of a table created from data (CREATE from a file, overwriteSchema): every
/// field nullable at every depth (array elements and map values too), as Spark does;
/// column-mapping and typeChanges metadata dropped (they belong to another table);
/// other metadata kept. Errors (kSchemaMismatch): no columns ("DELTA_EMPTY_DATA"),
/// names equal case-insensitively ("DELTA_DUPLICATE_COLUMNS_FOUND"), void types at any
/// depth (all of them named).
Result<SchemaRef> SchemaForNewTable(const StructType& input, std::string_view table_name);

/// `type` with every struct field nullable, every array containsNull and every map
/// valueContainsNull set, at every depth; `type` itself when nothing changes.
DataTypeRef MakeNullable(const DataTypeRef& type);

}  // namespace deltaguard

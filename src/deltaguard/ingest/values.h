/// \file deltaguard/ingest/values.h
/// Values of ingested records into Arrow builders of the ingest schema, with Auto
/// Loader's rescue: a value that does not fit its column (a type mismatch, a field the
/// schema lacks, a name that differs only by case) is never dropped and never turned
/// into NULL silently: the column gets NULL and the value goes to the rescued column as
/// it arrived (docs/ingest.md "Rescued data").
///
/// JSON values (ingest/json_tokens.h) keep their kinds: a number fits the numeric
/// types, a string fits STRING, DATE, TIMESTAMP, DECIMAL and BINARY (base64), `true`
/// and `false` fit BOOLEAN; any value fits STRING (objects and arrays as their JSON
/// text, as Spark's JSON reader does). CSV fields are text and are parsed as the
/// column's type. A number must fit its type exactly: 1.5 is not a LONG, 12.345 is not
/// a DECIMAL(10,2) (docs/behaviour.md "Ingestion").
#pragma once

#include <arrow/array/builder_base.h>
#include <arrow/status.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/ingest/json_tokens.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The rescued fields of one record, rendered as Auto Loader's JSON object: each
/// field under its name (nested fields inside objects of their parents), plus
/// `_file_path`.
class RescuedFields {
 public:
  void Clear() { entries_.clear(); }
  bool empty() const { return entries_.empty(); }
  /// `path` is the field's names from the top; `json` the value as JSON text.
  void Add(std::vector<std::string> path, std::string json);
  std::string Render(std::string_view file_path) const;

 private:
  std::vector<std::pair<std::vector<std::string>, std::string>> entries_;
};

/// A field a record had and the schema does not: its path and the type the record's
/// value suggests (ingest/infer.h rules).
struct UnknownField {
  std::vector<std::string> path;
  DataTypeRef type;
  /// The field exists with another type and the value did not fit it (reported only
  /// with ValueOptions::report_mismatches, for addNewColumnsWithTypeWidening).
  bool mismatch = false;
};

struct ValueOptions {
  bool case_sensitive = true;       ///< readerCaseSensitive
  bool infer_column_types = false;  ///< how an unknown field's type is guessed
  std::string timestamp_format;     ///< Spark pattern; "": ISO 8601
  std::string date_format;          ///< Spark pattern; "": yyyy-MM-dd
  std::string null_value;           ///< CSV: the text that means NULL
  /// Report values that do not fit their column's type as UnknownField{mismatch}.
  bool report_mismatches = false;
};

/// Appends values to builders made by MakeIngestBuilder; one per reader thread. A
/// builder that cannot grow (out of memory) is remembered in status(), which the
/// reader checks after each record.
class ValueAppender {
 public:
  explicit ValueAppender(ValueOptions options);

  /// A record's top-level object at `index` into `builders` (one per field of
  /// `schema`), as AppendJson does for a STRUCT.
  void AppendRecord(const JsonRecord& record, uint32_t index, const StructType& schema,
                    const std::vector<arrow::ArrayBuilder*>& builders,
                    RescuedFields* rescued, std::vector<UnknownField>* unknown);

  /// The JSON value `record.tokens()[index]` into `builder` of type `type`. Mismatches
  /// and unknown nested fields are added to `rescued` under `path`; unknown fields are
  /// also reported to `unknown` (null: not reported).
  void AppendJson(const JsonRecord& record, uint32_t index, const DataType& type,
                  arrow::ArrayBuilder* builder, std::vector<std::string>* path,
                  RescuedFields* rescued, std::vector<UnknownField>* unknown);

  /// A CSV field's text (`null_value` is NULL). A text that does not parse as `type`
  /// is rescued as a JSON string.
  void AppendText(std::string_view text, const DataType& type,
                  arrow::ArrayBuilder* builder, const std::vector<std::string>& path,
                  RescuedFields* rescued, std::vector<UnknownField>* unknown);

  /// The type a JSON value suggests: every leaf STRING unless infer_column_types
  /// (then LONG, DOUBLE, DECIMAL(38,0) beyond a LONG, BOOLEAN, STRING); objects are
  /// STRUCTs, arrays ARRAYs of their elements' merged type; NULL is VOID.
  DataTypeRef InferJson(const JsonRecord& record, uint32_t index) const;
  /// The type a CSV text suggests: STRING unless infer_column_types (then INTEGER,
  /// LONG, DOUBLE, BOOLEAN or STRING, as Spark's CSV inference).
  DataTypeRef InferText(std::string_view text) const;

  const arrow::Status& status() const { return status_; }

 private:
  void Members(const JsonRecord& record, uint32_t index, const StructType& type,
               const std::vector<arrow::ArrayBuilder*>& children,
               std::vector<std::string>* path, RescuedFields* rescued,
               std::vector<UnknownField>* unknown);
  bool AppendPrimitive(const JsonToken& token, const DataType& type,
                       arrow::ArrayBuilder* builder);
  /// `text` parsed as `type` (numbers, booleans, decimals, dates, timestamps, base64
  /// binary); false, with nothing appended, when it does not parse.
  bool AppendParsed(std::string_view text, const DataType& type,
                    arrow::ArrayBuilder* builder);
  void Keep(arrow::Status s) {
    if (status_.ok() && !s.ok()) status_ = std::move(s);
  }
  ValueOptions options_;
  arrow::Status status_;
  // Scratch reused across records: the path of the value being appended, and the
  // child builders of the struct at each depth (a deque: deeper levels are added
  // while shallower ones are in use).
  std::vector<std::string> path_;
  std::deque<std::vector<arrow::ArrayBuilder*>> children_;
};

/// Spark's type merging for inference: equal types stay; VOID gives way; INTEGER <
/// LONG < DECIMAL(38,0) < DOUBLE among numbers; structs merge field by field (new
/// fields appended, names matched case-insensitively); arrays merge elements; anything
/// else becomes STRING.
DataTypeRef MergeInferredTypes(const DataTypeRef& a, const DataTypeRef& b);

/// VOID leaves (only NULLs seen) as STRING, so a schema can hold them.
DataTypeRef ResolveVoid(const DataTypeRef& type);

/// A builder for Delta `type` (arrow/schema.h's mapping).
Result<std::unique_ptr<arrow::ArrayBuilder>> MakeIngestBuilder(const DataType& type);

}  // namespace deltaguard

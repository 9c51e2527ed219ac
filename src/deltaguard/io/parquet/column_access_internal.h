/// \file deltaguard/io/parquet/column_access_internal.h
/// Typed, allocation-free row accessors over Arrow arrays of a few physical layouts,
/// used to turn checkpoint rows into actions without per-row virtual calls or boxing.
///
/// Every accessor tolerates a missing column (all rows null), and Init() rejects an
/// array whose type does not fit with a message naming the column.
#pragma once

#include <arrow/array.h>
#include <arrow/type.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard::internal {

/// Base: holds the array alive and answers IsNull for absent columns.
class ColumnBase {
 public:
  bool present() const { return array_ != nullptr; }
  bool IsNull(int64_t i) const { return array_ == nullptr || array_->IsNull(i); }

 protected:
  Status Reject(std::string_view column, std::string_view expected) const {
    return MakeError(ErrorCode::kCorruptLog, "column '{}' has type {}, expected {}",
                     column, array_->type()->ToString(), expected);
  }
  std::shared_ptr<arrow::Array> holder_;
  const arrow::Array* array_ = nullptr;
};

/// utf8 / large_utf8 / binary / large_binary / string_view / binary_view.
class StringColumn : public ColumnBase {
 public:
  Status Init(std::shared_ptr<arrow::Array> array, std::string_view column) {
    holder_ = std::move(array);
    array_ = holder_.get();
    if (array_ == nullptr) return OkStatus();
    switch (array_->type_id()) {
      case arrow::Type::STRING:
      case arrow::Type::BINARY:
        small_ = static_cast<const arrow::BinaryArray*>(array_);
        return OkStatus();
      case arrow::Type::LARGE_STRING:
      case arrow::Type::LARGE_BINARY:
        large_ = static_cast<const arrow::LargeBinaryArray*>(array_);
        return OkStatus();
      case arrow::Type::STRING_VIEW:
      case arrow::Type::BINARY_VIEW:
        view_ = static_cast<const arrow::BinaryViewArray*>(array_);
        return OkStatus();
      case arrow::Type::NA:
        array_ = nullptr;
        return OkStatus();
      default:
        return Reject(column, "a string");
    }
  }
  /// REQUIRES: !IsNull(i).
  std::string_view View(int64_t i) const {
    if (small_ != nullptr) return small_->GetView(i);
    if (large_ != nullptr) return large_->GetView(i);
    return view_->GetView(i);
  }
  std::optional<std::string> Get(int64_t i) const {
    if (IsNull(i)) return std::nullopt;
    return std::string(View(i));
  }

 private:
  const arrow::BinaryArray* small_ = nullptr;
  const arrow::LargeBinaryArray* large_ = nullptr;
  const arrow::BinaryViewArray* view_ = nullptr;
};

/// Any signed or unsigned integer width, read as int64.
class IntColumn : public ColumnBase {
 public:
  Status Init(std::shared_ptr<arrow::Array> array, std::string_view column) {
    holder_ = std::move(array);
    array_ = holder_.get();
    if (array_ == nullptr) return OkStatus();
    if (array_->type_id() == arrow::Type::NA) {
      array_ = nullptr;
      return OkStatus();
    }
    if (!arrow::is_integer(array_->type_id())) return Reject(column, "an integer");
    type_ = array_->type_id();
    const auto& data = *array_->data();
    values_ = data.buffers[1] ? data.buffers[1]->data() : nullptr;
    offset_ = data.offset;
    return OkStatus();
  }
  /// REQUIRES: !IsNull(i).
  int64_t Value(int64_t i) const {
    int64_t k = i + offset_;
    switch (type_) {
      case arrow::Type::INT8:
        return reinterpret_cast<const int8_t*>(values_)[k];
      case arrow::Type::UINT8:
        return reinterpret_cast<const uint8_t*>(values_)[k];
      case arrow::Type::INT16:
        return reinterpret_cast<const int16_t*>(values_)[k];
      case arrow::Type::UINT16:
        return reinterpret_cast<const uint16_t*>(values_)[k];
      case arrow::Type::INT32:
        return reinterpret_cast<const int32_t*>(values_)[k];
      case arrow::Type::UINT32:
        return reinterpret_cast<const uint32_t*>(values_)[k];
      case arrow::Type::UINT64:
        return static_cast<int64_t>(reinterpret_cast<const uint64_t*>(values_)[k]);
      default:
        return reinterpret_cast<const int64_t*>(values_)[k];
    }
  }
  std::optional<int64_t> Get(int64_t i) const {
    if (IsNull(i)) return std::nullopt;
    return Value(i);
  }

 private:
  arrow::Type::type type_ = arrow::Type::INT64;
  const uint8_t* values_ = nullptr;
  int64_t offset_ = 0;
};

class BoolColumn : public ColumnBase {
 public:
  Status Init(std::shared_ptr<arrow::Array> array, std::string_view column) {
    holder_ = std::move(array);
    array_ = holder_.get();
    if (array_ == nullptr) return OkStatus();
    if (array_->type_id() == arrow::Type::NA) {
      array_ = nullptr;
      return OkStatus();
    }
    if (array_->type_id() != arrow::Type::BOOL) return Reject(column, "a boolean");
    bools_ = static_cast<const arrow::BooleanArray*>(array_);
    return OkStatus();
  }
  std::optional<bool> Get(int64_t i) const {
    if (IsNull(i)) return std::nullopt;
    return bools_->Value(i);
  }

 private:
  const arrow::BooleanArray* bools_ = nullptr;
};

/// list<T> / large_list<T> (also map<K,V>, whose values are the entries struct):
/// per-row [begin, end) into the values array.
class ListOffsets : public ColumnBase {
 public:
  /// Sets *values to the child array (entries for a map). `column` for messages.
  Status Init(std::shared_ptr<arrow::Array> array, std::string_view column,
              std::shared_ptr<arrow::Array>* values) {
    holder_ = std::move(array);
    array_ = holder_.get();
    values->reset();
    if (array_ == nullptr) return OkStatus();
    switch (array_->type_id()) {
      case arrow::Type::LIST:
      case arrow::Type::MAP: {
        small_ = static_cast<const arrow::ListArray*>(array_);
        *values = small_->values();
        return OkStatus();
      }
      case arrow::Type::LARGE_LIST: {
        large_ = static_cast<const arrow::LargeListArray*>(array_);
        *values = large_->values();
        return OkStatus();
      }
      case arrow::Type::NA:
        array_ = nullptr;
        return OkStatus();
      default:
        return Reject(column, "a list or map");
    }
  }
  /// REQUIRES: !IsNull(i).
  std::pair<int64_t, int64_t> Range(int64_t i) const {
    if (small_ != nullptr) {
      return {small_->value_offset(i), small_->value_offset(i) + small_->value_length(i)};
    }
    return {large_->value_offset(i), large_->value_offset(i) + large_->value_length(i)};
  }

 private:
  const arrow::ListArray* small_ = nullptr;
  const arrow::LargeListArray* large_ = nullptr;
};

/// list<string>.
class StringListColumn {
 public:
  Status Init(std::shared_ptr<arrow::Array> array, std::string_view column) {
    std::shared_ptr<arrow::Array> values;
    DELTA_RETURN_IF_ERROR(lists_.Init(std::move(array), column, &values));
    return elements_.Init(std::move(values), column);
  }
  std::optional<std::vector<std::string>> Get(int64_t i) const {
    if (lists_.IsNull(i)) return std::nullopt;
    auto [begin, end] = lists_.Range(i);
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(end - begin));
    for (int64_t k = begin; k < end; ++k) {
      if (!elements_.IsNull(k)) out.emplace_back(elements_.View(k));
    }
    return out;
  }

 private:
  ListOffsets lists_;
  StringColumn elements_;
};

/// map<string, string>, or list<struct<key, value>> as older writers produce it.
class StringMapColumn {
 public:
  Status Init(std::shared_ptr<arrow::Array> array, std::string_view column) {
    std::shared_ptr<arrow::Array> entries;
    DELTA_RETURN_IF_ERROR(lists_.Init(std::move(array), column, &entries));
    if (entries == nullptr) return OkStatus();
    if (entries->type_id() != arrow::Type::STRUCT || entries->num_fields() != 2) {
      return MakeError(ErrorCode::kCorruptLog,
                       "column '{}' has type {}, expected map<string, string>", column,
                       entries->type()->ToString());
    }
    const auto& st = static_cast<const arrow::StructArray&>(*entries);
    DELTA_RETURN_IF_ERROR(keys_.Init(st.field(0), column));
    return values_.Init(st.field(1), column);
  }
  bool IsNull(int64_t i) const { return lists_.IsNull(i); }
  /// Entries with null values keep them as std::nullopt (partitionValues).
  std::vector<std::pair<std::string, std::optional<std::string>>> GetWithNulls(
      int64_t i) const {
    std::vector<std::pair<std::string, std::optional<std::string>>> out;
    if (lists_.IsNull(i)) return out;
    auto [begin, end] = lists_.Range(i);
    out.reserve(static_cast<size_t>(end - begin));
    for (int64_t k = begin; k < end; ++k) {
      if (keys_.IsNull(k)) continue;
      out.emplace_back(std::string(keys_.View(k)), values_.Get(k));
    }
    return out;
  }
  /// Entries with null values are dropped (tags, configuration, options).
  std::vector<std::pair<std::string, std::string>> Get(int64_t i) const {
    std::vector<std::pair<std::string, std::string>> out;
    if (lists_.IsNull(i)) return out;
    auto [begin, end] = lists_.Range(i);
    out.reserve(static_cast<size_t>(end - begin));
    for (int64_t k = begin; k < end; ++k) {
      if (keys_.IsNull(k) || values_.IsNull(k)) continue;
      out.emplace_back(std::string(keys_.View(k)), std::string(values_.View(k)));
    }
    return out;
  }

 private:
  ListOffsets lists_;
  StringColumn keys_;
  StringColumn values_;
};

/// A struct column whose children are looked up by name.
class StructColumn : public ColumnBase {
 public:
  Status Init(std::shared_ptr<arrow::Array> array, std::string_view column) {
    holder_ = std::move(array);
    array_ = holder_.get();
    if (array_ == nullptr) return OkStatus();
    if (array_->type_id() == arrow::Type::NA) {
      array_ = nullptr;
      return OkStatus();
    }
    if (array_->type_id() != arrow::Type::STRUCT) return Reject(column, "a struct");
    struct_ = static_cast<const arrow::StructArray*>(array_);
    return OkStatus();
  }
  /// The child named `name` (sliced to this array), or nullptr.
  std::shared_ptr<arrow::Array> Child(std::string_view name) const {
    if (struct_ == nullptr) return nullptr;
    return struct_->GetFieldByName(std::string(name));
  }

 private:
  const arrow::StructArray* struct_ = nullptr;
};

}  // namespace deltaguard::internal

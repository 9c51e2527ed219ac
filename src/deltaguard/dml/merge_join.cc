// MERGE join helpers: qualified batches, row key encoding, key ranges and file pruning by
// add.stats (PROTOCOL.md "Per-file Statistics"), nested-field pruning (merge_internal.h).

#include <arrow/array/array_nested.h>
#include <arrow/scalar.h>
#include <arrow/visit_type_inline.h>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/io/parquet/arrow_status_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::dml_internal {

Result<std::shared_ptr<arrow::RecordBatch>> Qualified(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::string& alias) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& f : batch->schema()->fields()) {
    fields.push_back(f->WithName(JoinedName(alias, f->name())));
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), batch->num_rows(),
                                  batch->columns());
}

namespace {

// Append the bytes of row `i` of `array` (non-null) to `out`.
void AppendValue(const arrow::Array& array, int64_t i, std::string* out) {
  const auto& type = *array.type();
  switch (type.id()) {
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      double v = type.id() == arrow::Type::FLOAT
                     ? static_cast<const arrow::FloatArray&>(array).Value(i)
                     : static_cast<const arrow::DoubleArray&>(array).Value(i);
      if (v == 0.0) v = 0.0;  // -0.0 == 0.0
      if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
      out->append(reinterpret_cast<const char*>(&v), sizeof(v));
      return;
    }
    case arrow::Type::BOOL:
      out->push_back(static_cast<const arrow::BooleanArray&>(array).Value(i) ? 1 : 0);
      return;
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      auto view = static_cast<const arrow::BinaryArray&>(array).GetView(i);
      uint32_t n = static_cast<uint32_t>(view.size());
      out->append(reinterpret_cast<const char*>(&n), sizeof(n));
      out->append(view.data(), view.size());
      return;
    }
    default:
      break;
  }
  if (arrow::is_fixed_width(type.id())) {
    const auto& data = *array.data();
    int width = type.byte_width();
    if (width > 0 && data.buffers.size() > 1 && data.buffers[1]) {
      const uint8_t* base = data.buffers[1]->data() + (data.offset + i) * width;
      out->append(reinterpret_cast<const char*>(base), static_cast<size_t>(width));
      return;
    }
  }
  auto scalar = array.GetScalar(i);
  std::string text = scalar.ok() ? (*scalar)->ToString() : "?";
  uint32_t n = static_cast<uint32_t>(text.size());
  out->append(reinterpret_cast<const char*>(&n), sizeof(n));
  out->append(text);
}

}  // namespace

Result<std::vector<std::optional<std::string>>> EncodeKeys(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t num_rows) {
  std::vector<std::optional<std::string>> keys(static_cast<size_t>(num_rows));
  for (int64_t r = 0; r < num_rows; ++r) {
    std::string key;
    bool null = false;
    for (const auto& c : columns) {
      if (c->IsNull(r)) {
        null = true;
        break;
      }
      AppendValue(*c, r, &key);
    }
    if (!null) keys[static_cast<size_t>(r)] = std::move(key);
  }
  return keys;
}

std::string DescribeKey(const std::vector<BoundExprRef>& keys,
                        const std::vector<std::shared_ptr<arrow::Array>>& columns,
                        int64_t row) {
  std::string out;
  for (size_t i = 0; i < keys.size() && i < columns.size(); ++i) {
    const BoundExpr* e = keys[i].get();
    while (e->kind == BoundKind::kCast) e = e->args[0].get();
    std::string name = e->kind == BoundKind::kColumn && !e->path.empty()
                           ? fmt::format("{}", fmt::join(e->path, "."))
                           : fmt::format("key {}", i + 1);
    auto scalar = columns[i]->GetScalar(row);
    std::string value = scalar.ok() ? (*scalar)->ToString() : "?";
    if (columns[i]->type_id() == arrow::Type::STRING) value = "'" + value + "'";
    out += (out.empty() ? "" : ", ") + name + " = " + value;
  }
  return out;
}

Result<std::optional<KeyRange>> IntegralRange(const arrow::Array& column) {
  std::optional<KeyRange> range;
  auto visit = [&](int64_t v) {
    if (!range) {
      range = KeyRange{v, v};
    } else {
      range->min = std::min(range->min, v);
      range->max = std::max(range->max, v);
    }
  };
  for (int64_t i = 0; i < column.length(); ++i) {
    if (column.IsNull(i)) continue;
    switch (column.type_id()) {
      case arrow::Type::INT8:
        visit(static_cast<const arrow::Int8Array&>(column).Value(i));
        break;
      case arrow::Type::INT16:
        visit(static_cast<const arrow::Int16Array&>(column).Value(i));
        break;
      case arrow::Type::INT32:
        visit(static_cast<const arrow::Int32Array&>(column).Value(i));
        break;
      case arrow::Type::INT64:
        visit(static_cast<const arrow::Int64Array&>(column).Value(i));
        break;
      default:
        return MakeError(ErrorCode::kInternal, "key range of a non-integral column ({})",
                         column.type()->ToString());
    }
  }
  return range;
}

bool FileMayMatch(const AddFile& file, const StructField& column, bool is_partition,
                  ColumnMappingMode mode, const std::optional<KeyRange>& range) {
  if (!range) return false;  // no source key: nothing can match
  std::string key = column.name;
  if (mode != ColumnMappingMode::kNone) {
    if (auto physical = column.physical_name()) key = *physical;
  }
  if (is_partition) {
    for (const auto& [k, v] : file.partition_values) {
      if (k != key) continue;
      if (!v || v->empty()) return false;  // NULL partition: `=` never holds
      char* end = nullptr;
      errno = 0;
      long long value = std::strtoll(v->c_str(), &end, 10);
      if (errno != 0 || end == v->c_str() || *end != '\0') return true;
      return value >= range->min && value <= range->max;
    }
    return true;
  }
  if (!file.stats) return true;
  rapidjson::Document doc;
  doc.Parse(file.stats->c_str(), file.stats->size());
  if (doc.HasParseError() || !doc.IsObject()) return true;
  auto member = [&](const char* section) -> const rapidjson::Value* {
    auto s = doc.FindMember(section);
    if (s == doc.MemberEnd() || !s->value.IsObject()) return nullptr;
    auto m = s->value.FindMember(key.c_str());
    if (m == s->value.MemberEnd()) return nullptr;
    return &m->value;
  };
  const rapidjson::Value* min = member("minValues");
  const rapidjson::Value* max = member("maxValues");
  if (min && max && min->IsInt64() && max->IsInt64()) {
    return !(max->GetInt64() < range->min || min->GetInt64() > range->max);
  }
  // Without min/max: a file whose values are all NULL cannot match.
  const rapidjson::Value* nulls = member("nullCount");
  auto records = doc.FindMember("numRecords");
  if (!min && !max && nulls && nulls->IsInt64() && records != doc.MemberEnd() &&
      records->value.IsInt64() && nulls->GetInt64() == records->value.GetInt64()) {
    return false;
  }
  return true;
}

DataTypeRef PruneType(const DataTypeRef& source, const DataTypeRef& target) {
  if (source->kind() != target->kind()) return source;
  switch (source->kind()) {
    case TypeKind::kStruct: {
      const auto& s = static_cast<const StructType&>(*source);
      const auto& t = static_cast<const StructType&>(*target);
      std::vector<StructField> kept;
      bool dropped = false;
      for (const auto& f : s.fields()) {
        int i = t.FieldIndexCaseInsensitive(f.name);
        if (i < 0) {
          dropped = true;
          continue;
        }
        StructField copy = f;
        copy.type = PruneType(f.type, t.field(static_cast<size_t>(i)).type);
        dropped = dropped || copy.type != f.type;
        kept.push_back(std::move(copy));
      }
      if (!dropped) return source;
      return std::make_shared<StructType>(std::move(kept));
    }
    case TypeKind::kArray: {
      const auto& s = static_cast<const ArrayType&>(*source);
      const auto& t = static_cast<const ArrayType&>(*target);
      auto element = PruneType(s.element_type(), t.element_type());
      if (element == s.element_type()) return source;
      return std::make_shared<ArrayType>(element, s.contains_null());
    }
    case TypeKind::kMap: {
      const auto& s = static_cast<const MapType&>(*source);
      const auto& t = static_cast<const MapType&>(*target);
      auto value = PruneType(s.value_type(), t.value_type());
      if (value == s.value_type()) return source;
      return std::make_shared<MapType>(s.key_type(), value, s.value_contains_null());
    }
    default:
      return source;
  }
}

Result<std::shared_ptr<arrow::Array>> PruneArray(
    const std::shared_ptr<arrow::Array>& array,
    const std::shared_ptr<arrow::DataType>& type) {
  if (array->type()->Equals(*type)) return array;
  switch (type->id()) {
    case arrow::Type::STRUCT: {
      // Work on the unsliced children and keep the struct's own offset.
      const auto& data = *array->data();
      const auto& in_type = static_cast<const arrow::StructType&>(*array->type());
      std::vector<std::shared_ptr<arrow::ArrayData>> children;
      std::vector<std::shared_ptr<arrow::Field>> fields;
      for (const auto& f : type->fields()) {
        int i = in_type.GetFieldIndex(f->name());
        if (i < 0) {
          return MakeError(ErrorCode::kInternal, "pruning: struct field '{}' missing",
                           f->name());
        }
        DELTA_ASSIGN_OR_RETURN(
            auto child,
            PruneArray(arrow::MakeArray(data.child_data[static_cast<size_t>(i)]),
                       f->type()));
        children.push_back(child->data());
        fields.push_back(f->WithType(child->type()));
      }
      auto out =
          arrow::ArrayData::Make(arrow::struct_(fields), data.length, {data.buffers[0]},
                                 children, data.null_count, data.offset);
      return arrow::MakeArray(out);
    }
    case arrow::Type::LIST: {
      const auto& l = static_cast<const arrow::ListArray&>(*array);
      const auto& lt = static_cast<const arrow::ListType&>(*type);
      DELTA_ASSIGN_OR_RETURN(auto values, PruneArray(l.values(), lt.value_type()));
      auto out = std::make_shared<arrow::ListArray>(
          arrow::list(lt.value_field()->WithType(values->type())), l.length(),
          l.value_offsets(), values, l.null_bitmap(), l.null_count(), l.offset());
      return std::static_pointer_cast<arrow::Array>(out);
    }
    default:
      return array;  // maps are not pruned (the conformer reports them)
  }
}

}  // namespace deltaguard::dml_internal

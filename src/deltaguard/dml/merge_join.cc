// MERGE join helpers: qualified batches, row key encoding, key ranges and file pruning by
// add.stats (PROTOCOL.md "Per-file Statistics"), nested-field pruning (merge_internal.h).

#include <arrow/array/array_nested.h>
#include <arrow/buffer.h>
#include <arrow/scalar.h>
#include <arrow/util/bit_util.h>
#include <arrow/visit_type_inline.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/log/add_stats.h"
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

bool IntegralKeyIndex::Supports(const arrow::Array& column) {
  switch (column.type_id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
      return true;
    default:
      return false;
  }
}

namespace {

// Value i of an integral column as int64 (IntegralKeyIndex::Supports must hold).
int64_t IntegralValue(const arrow::Array& column, int64_t i) {
  switch (column.type_id()) {
    case arrow::Type::INT8:
      return static_cast<const arrow::Int8Array&>(column).Value(i);
    case arrow::Type::INT16:
      return static_cast<const arrow::Int16Array&>(column).Value(i);
    case arrow::Type::INT32:
      return static_cast<const arrow::Int32Array&>(column).Value(i);
    default:
      return static_cast<const arrow::Int64Array&>(column).Value(i);
  }
}

}  // namespace

void IntegralKeyIndex::Build(const arrow::Array& column, std::vector<int64_t>* next) {
  const int64_t n = column.length();
  next->assign(static_cast<size_t>(n), -1);
  slots_.clear();
  bits_.clear();
  ranks_.clear();
  heads_.clear();
  min_ = 0;
  max_ = -1;
  bool any = false;
  for (int64_t r = 0; r < n; ++r) {
    if (column.IsNull(r)) continue;
    const int64_t value = IntegralValue(column, r);
    min_ = any ? std::min(min_, value) : value;
    max_ = any ? std::max(max_, value) : value;
    any = true;
  }
  if (!any) return;
  // Adds row r (rows come backwards, so that each chain starts at its key's first row,
  // as the string index) to the head `*head`.
  auto link = [&](int64_t* head, int64_t r) {
    if (*head < 0) {
      *head = r;
    } else {
      (*next)[static_cast<size_t>(r)] = *head & ~kMore;
      *head = r | kMore;
    }
  };
  const auto span = static_cast<uint64_t>(max_) - static_cast<uint64_t>(min_);
  if (span < static_cast<uint64_t>(n) * 64 && n < (int64_t{1} << 32)) {
    // Dense: a bitmap of at most 8 bytes per source row, then ranks and heads.
    bits_.assign(span / 64 + 1, 0);
    for (int64_t r = 0; r < n; ++r) {
      if (column.IsNull(r)) continue;
      const auto offset =
          static_cast<uint64_t>(IntegralValue(column, r)) - static_cast<uint64_t>(min_);
      bits_[offset >> 6] |= uint64_t{1} << (offset & 63);
    }
    ranks_.resize(bits_.size());
    uint64_t present = 0;
    for (size_t w = 0; w < bits_.size(); ++w) {
      ranks_[w] = static_cast<uint32_t>(present);
      present += static_cast<uint64_t>(__builtin_popcountll(bits_[w]));
    }
    heads_.assign(present, -1);
    for (int64_t r = n; r-- > 0;) {
      if (column.IsNull(r)) continue;
      const auto offset =
          static_cast<uint64_t>(IntegralValue(column, r)) - static_cast<uint64_t>(min_);
      link(&heads_[Rank(offset)], r);
    }
    return;
  }
  // Sparse: capacity a power of two at least twice the rows (load factor <= 0.5).
  size_t capacity = 16;
  int bits = 4;
  while (capacity < static_cast<size_t>(n) * 2) {
    capacity <<= 1;
    ++bits;
  }
  slots_.assign(capacity, Entry{});
  mask_ = capacity - 1;
  shift_ = 64 - bits;
  for (int64_t r = n; r-- > 0;) {
    if (column.IsNull(r)) continue;
    const int64_t value = IntegralValue(column, r);
    for (size_t i = Slot(value);; i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (e.row < 0) {
        e.key = value;
        e.row = r;
        break;
      }
      if (e.key == value) {
        link(&e.row, r);
        break;
      }
    }
  }
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
  auto stats = ParseAddStats(*file.stats);
  if (!stats) return true;
  const ColumnStats* column_stats = stats->Find({key});
  if (!column_stats) return true;
  auto min = ColumnStats::Int(column_stats->min);
  auto max = ColumnStats::Int(column_stats->max);
  if (min && max) return !(*max < range->min || *min > range->max);
  // Without min/max: a file whose values are all NULL cannot match.
  auto nulls = ColumnStats::Int(column_stats->null_count);
  if (!column_stats->min && !column_stats->max && nulls && stats->num_records &&
      *nulls == *stats->num_records) {
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

bool HasTargetOnlyFields(const DataType& source, const DataType& target) {
  if (source.kind() != TypeKind::kStruct || target.kind() != TypeKind::kStruct) {
    return false;
  }
  const auto& s = static_cast<const StructType&>(source);
  for (const auto& f : static_cast<const StructType&>(target).fields()) {
    const int i = s.FieldIndexCaseInsensitive(f.name);
    if (i < 0 || HasTargetOnlyFields(*s.field(static_cast<size_t>(i)).type, *f.type)) {
      return true;
    }
  }
  return false;
}

Result<std::shared_ptr<arrow::Array>> KeepTargetOnlyFields(
    const std::shared_ptr<arrow::Array>& source,
    const std::shared_ptr<arrow::Array>& target) {
  if (source->type_id() != arrow::Type::STRUCT ||
      target->type_id() != arrow::Type::STRUCT || source->length() != target->length()) {
    return source;
  }
  const auto& s = static_cast<const arrow::StructArray&>(*source);
  const auto& t = static_cast<const arrow::StructArray&>(*target);
  const auto& s_type = static_cast<const arrow::StructType&>(*s.type());
  const auto& t_type = static_cast<const arrow::StructType&>(*t.type());
  std::vector<std::shared_ptr<arrow::Array>> children;
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<bool> seen(static_cast<size_t>(t_type.num_fields()), false);
  bool changed = false;
  for (int i = 0; i < s_type.num_fields(); ++i) {
    std::shared_ptr<arrow::Array> child = s.field(i);  // sliced to s's rows
    int j = -1;
    for (int k = 0; k < t_type.num_fields(); ++k) {
      if (EqualsIgnoreCase(t_type.field(k)->name(), s_type.field(i)->name())) j = k;
    }
    if (j >= 0) {
      seen[static_cast<size_t>(j)] = true;
      // The target's child with the target struct's NULLs applied.
      DELTA_ARROW_ASSIGN_OR_RETURN(auto t_child, t.GetFlattenedField(j),
                                   ErrorCode::kInternal, "MERGE UPDATE SET *");
      DELTA_ASSIGN_OR_RETURN(auto kept, KeepTargetOnlyFields(child, t_child));
      changed = changed || kept != child;
      child = std::move(kept);
    }
    fields.push_back(s_type.field(i)->WithType(child->type()));
    children.push_back(std::move(child));
  }
  for (int j = 0; j < t_type.num_fields(); ++j) {
    if (seen[static_cast<size_t>(j)]) continue;
    DELTA_ARROW_ASSIGN_OR_RETURN(auto t_child, t.GetFlattenedField(j),
                                 ErrorCode::kInternal, "MERGE UPDATE SET *");
    fields.push_back(t_type.field(j)->WithNullable(true));
    children.push_back(std::move(t_child));
    changed = true;
  }
  if (!changed) return source;
  // Children are sliced to s's rows: the validity bitmap must start at row 0 too.
  std::shared_ptr<arrow::Buffer> validity;
  if (s.null_count() > 0) {
    DELTA_ARROW_ASSIGN_OR_RETURN(validity, arrow::AllocateEmptyBitmap(s.length()),
                                 ErrorCode::kInternal, "MERGE UPDATE SET *");
    for (int64_t r = 0; r < s.length(); ++r) {
      if (s.IsValid(r)) arrow::bit_util::SetBit(validity->mutable_data(), r);
    }
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(
      auto out, arrow::StructArray::Make(children, fields, validity, s.null_count()),
      ErrorCode::kInternal, "MERGE UPDATE SET *");
  return std::static_pointer_cast<arrow::Array>(out);
}

Result<std::shared_ptr<arrow::Array>> ReplaceNestedField(
    const std::shared_ptr<arrow::Array>& parent, const std::vector<std::string>& path,
    const std::shared_ptr<arrow::Array>& value, size_t depth) {
  if (parent->type_id() != arrow::Type::STRUCT || depth >= path.size()) {
    return MakeError(ErrorCode::kInternal, "nested assignment: '{}' is not a struct",
                     fmt::format("{}", fmt::join(path, ".")));
  }
  const auto& s = static_cast<const arrow::StructArray&>(*parent);
  const auto& type = static_cast<const arrow::StructType&>(*s.type());
  std::vector<std::shared_ptr<arrow::Array>> children;
  std::vector<std::shared_ptr<arrow::Field>> fields;
  bool found = false;
  for (int k = 0; k < type.num_fields(); ++k) {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto child, s.GetFlattenedField(k), ErrorCode::kInternal,
                                 "nested assignment");
    if (!found && EqualsIgnoreCase(type.field(k)->name(), path[depth])) {
      found = true;
      if (depth + 1 == path.size()) {
        child = value;
      } else {
        DELTA_ASSIGN_OR_RETURN(child, ReplaceNestedField(child, path, value, depth + 1));
      }
    }
    fields.push_back(type.field(k)->WithType(child->type())->WithNullable(true));
    children.push_back(std::move(child));
  }
  if (!found || value->length() != s.length()) {
    return MakeError(ErrorCode::kInternal, "nested assignment: no field '{}' in {}",
                     fmt::format("{}", fmt::join(path, ".")), type.ToString());
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(auto out, arrow::StructArray::Make(children, fields),
                               ErrorCode::kInternal, "nested assignment");
  return std::static_pointer_cast<arrow::Array>(out);
}

Status AddNestedAssignment(const StructType& schema, std::vector<std::string> path,
                           const ExprRef& value, const StructType& bind_schema,
                           const std::string& what, NestedSets* sets) {
  const std::string shown = fmt::format("{}", fmt::join(path, "."));
  const StructType* parent = &schema;
  const StructField* field = nullptr;
  for (size_t i = 0; i < path.size(); ++i) {
    if (!parent) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: cannot assign '{}': '{}' is not a struct", what, shown,
                       path[i - 1]);
    }
    const int at = parent->FieldIndexCaseInsensitive(path[i]);
    if (at < 0) {
      return MakeError(ErrorCode::kNotFound,
                       "{}: column '{}' does not exist (no field '{}')", what, shown,
                       path[i]);
    }
    field = &parent->field(static_cast<size_t>(at));
    path[i] = field->name;
    parent = field->type->kind() == TypeKind::kStruct
                 ? static_cast<const StructType*>(field->type.get())
                 : nullptr;
  }
  auto bound = Bind(*value, bind_schema);
  if (!bound)
    return WithContext(bound.error(), fmt::format("{}, column {}", what, shown));
  const DataType& from = *(*bound)->type;
  if (!from.Equals(*field->type)) {
    if (!(from.is_numeric() && field->type->is_numeric()) &&
        from.kind() != TypeKind::kVoid && !IsLosslessWriteCast(from, *field->type)) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "{}: cannot assign a value of type {} to column '{}' of type {}",
                       what, from.ToString(), shown, field->type->ToString());
    }
    auto cast = std::make_shared<Expr>();
    cast->kind = ExprKind::kCast;
    cast->cast_type = field->type;
    cast->children = {value};
    auto cast_bound = Bind(*cast, bind_schema);
    if (!cast_bound) {
      return WithContext(cast_bound.error(), fmt::format("{}, column {}", what, shown));
    }
    bound = std::move(cast_bound);
  }
  std::vector<std::string> below(path.begin() + 1, path.end());
  for (auto& [name, list] : *sets) {
    if (name != path[0]) continue;
    for (const auto& entry : list) {
      if (entry.first == below) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "{}: column '{}' is assigned more than once", what, shown);
      }
    }
    list.emplace_back(std::move(below), *bound);
    return OkStatus();
  }
  sets->push_back({path[0], {{std::move(below), *bound}}});
  return OkStatus();
}

}  // namespace deltaguard::dml_internal

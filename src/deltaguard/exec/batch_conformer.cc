#include "deltaguard/exec/batch_conformer.h"

#include <arrow/array.h>
#include <arrow/compute/cast.h>
#include <fmt/format.h>

#include <utility>
#include <vector>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

/// How one table position (field, array element, map key or value) is produced.
struct BatchConformer::Node {
  enum class Kind : uint8_t { kNull, kCast, kStruct, kList, kMap };
  Kind kind = Kind::kNull;
  std::string path;           ///< dotted, for messages ("s.a", "tags.element", "m.value")
  bool nullable = true;       ///< the table allows NULL here
  bool has_required = false;  ///< this node or a descendant is NOT NULL
  DataTypeRef target;
  std::shared_ptr<arrow::DataType> out_type;
  std::shared_ptr<arrow::DataType> in_type;
  /// kCast: a dictionary input whose values have out_type passes as is
  /// (ConformOptions::keep_dictionaries).
  bool keep_dictionary = false;
  /// kList: the input is first cast to list<element> when it is another list kind.
  std::shared_ptr<arrow::DataType> list_type;
  /// kStruct: the input child for each target child, -1 when missing; kMap: {0, 1}.
  std::vector<int> input_index;
  /// kStruct: one per target field; kList: element; kMap: key, value.
  std::vector<Node> children;
};

namespace {

using Node = BatchConformer::Node;

std::string TableLabel(const ConformOptions& options) {
  return options.table_name.empty() ? std::string("the table")
                                    : fmt::format("table '{}'", options.table_name);
}

std::string DescribeInput(const arrow::DataType& type) {
  auto delta = FromArrowType(type);
  if (!delta) return type.ToString();
  std::string name = (*delta)->ToString();
  return name == type.ToString() ? name
                                 : fmt::format("{} (Arrow {})", name, type.ToString());
}

bool IsListLike(arrow::Type::type id) {
  return id == arrow::Type::LIST || id == arrow::Type::LARGE_LIST ||
         id == arrow::Type::FIXED_SIZE_LIST || id == arrow::Type::LIST_VIEW ||
         id == arrow::Type::LARGE_LIST_VIEW;
}

Error TypeMismatch(const std::string& path, const arrow::DataType& in,
                   const DataType& target, const ConformOptions& options) {
  return MakeError(ErrorCode::kSchemaMismatch,
                   "column '{}' of {}: cannot write input type {} into table type {} "
                   "(only lossless casts are applied)",
                   path, TableLabel(options), DescribeInput(in), target.ToString());
}

Result<Node> BuildNode(const std::shared_ptr<arrow::DataType>& in_type,
                       const DataTypeRef& target, bool nullable, std::string path,
                       const ConformOptions& options);

/// Match `in_fields` to the target struct fields (by name, or by position when
/// `by_position`), building the children of a kStruct node.
Status BuildStructChildren(const arrow::FieldVector& in_fields, const StructType& target,
                           bool by_position, Node* node, const ConformOptions& options) {
  node->input_index.assign(target.num_fields(), -1);
  if (by_position) {
    if (in_fields.size() > target.num_fields()) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "the input has {} columns but {} has {}; extra input columns "
                       "would be lost",
                       in_fields.size(), TableLabel(options), target.num_fields());
    }
    // docs/decisions.md §5: the table's names in another order means a positional
    // write would swap columns.
    bool same_names_reordered = in_fields.size() == target.num_fields();
    bool same_order = true;
    for (size_t i = 0; i < in_fields.size(); ++i) {
      int at = target.FieldIndexCaseInsensitive(in_fields[i]->name());
      if (at < 0) same_names_reordered = false;
      if (at != static_cast<int>(i)) same_order = false;
      node->input_index[i] = static_cast<int>(i);
    }
    if (same_names_reordered && !same_order) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "the input columns are the columns of {} in a different order; a "
                       "positional write would put values into the wrong columns. Match "
                       "them BY NAME instead",
                       TableLabel(options));
    }
  } else {
    for (size_t i = 0; i < in_fields.size(); ++i) {
      const std::string& name = in_fields[i]->name();
      for (size_t j = 0; j < i; ++j) {
        if (EqualsIgnoreCase(in_fields[j]->name(), name)) {
          return MakeError(ErrorCode::kSchemaMismatch,
                           "input columns '{}' and '{}' differ only by case",
                           ChildColumnPath(node->path, in_fields[j]->name()),
                           ChildColumnPath(node->path, name));
        }
      }
      int at = target.FieldIndexCaseInsensitive(name);
      if (at < 0) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "input column '{}' is not in {}; enable schema evolution to "
                         "add it",
                         ChildColumnPath(node->path, name), TableLabel(options));
      }
      node->input_index[static_cast<size_t>(at)] = static_cast<int>(i);
    }
  }
  for (size_t t = 0; t < target.num_fields(); ++t) {
    const StructField& f = target.field(t);
    std::string path = ChildColumnPath(node->path, f.name);
    int idx = node->input_index[t];
    if (idx < 0) {
      Node missing;
      missing.path = std::move(path);
      missing.nullable = f.nullable;
      missing.has_required = !f.nullable;
      missing.target = f.type;
      DELTA_ASSIGN_OR_RETURN(missing.out_type, ToArrowType(*f.type));
      node->children.push_back(std::move(missing));
    } else {
      DELTA_ASSIGN_OR_RETURN(
          Node child, BuildNode(in_fields[static_cast<size_t>(idx)]->type(), f.type,
                                f.nullable, std::move(path), options));
      // Only top-level columns stay dictionary-encoded: a struct's children are
      // rebuilt with the table's child types.
      const bool top_level = node->path.empty();
      child.keep_dictionary = child.keep_dictionary && top_level;
      node->children.push_back(std::move(child));
    }
    node->has_required = node->has_required || node->children.back().has_required;
  }
  return OkStatus();
}

Result<Node> BuildNode(const std::shared_ptr<arrow::DataType>& in_type,
                       const DataTypeRef& target, bool nullable, std::string path,
                       const ConformOptions& options) {
  Node node;
  node.path = std::move(path);
  node.nullable = nullable;
  node.has_required = !nullable;
  node.target = target;
  node.in_type = in_type;
  DELTA_ASSIGN_OR_RETURN(node.out_type, ToArrowType(*target));
  const arrow::Type::type id = in_type->id();
  if (id == arrow::Type::NA) return node;  // void -> anything: a column of NULLs
  switch (target->kind()) {
    case TypeKind::kStruct: {
      if (id != arrow::Type::STRUCT)
        return TypeMismatch(node.path, *in_type, *target, options);
      node.kind = Node::Kind::kStruct;
      DELTA_RETURN_IF_ERROR(BuildStructChildren(in_type->fields(),
                                                static_cast<const StructType&>(*target),
                                                /*by_position=*/false, &node, options));
      return node;
    }
    case TypeKind::kArray: {
      if (!IsListLike(id)) return TypeMismatch(node.path, *in_type, *target, options);
      const auto& at = static_cast<const ArrayType&>(*target);
      const auto& element = in_type->field(0);
      node.kind = Node::Kind::kList;
      if (id != arrow::Type::LIST) {
        node.list_type = arrow::list(element);
        if (!arrow::compute::CanCast(*in_type, *node.list_type)) {
          return TypeMismatch(node.path, *in_type, *target, options);
        }
      }
      DELTA_ASSIGN_OR_RETURN(
          Node child, BuildNode(element->type(), at.element_type(), at.contains_null(),
                                ChildColumnPath(node.path, "element"), options));
      node.has_required = node.has_required || child.has_required;
      node.children.push_back(std::move(child));
      return node;
    }
    case TypeKind::kMap: {
      if (id != arrow::Type::MAP)
        return TypeMismatch(node.path, *in_type, *target, options);
      const auto& mt = static_cast<const MapType&>(*target);
      const auto& in_map = static_cast<const arrow::MapType&>(*in_type);
      node.kind = Node::Kind::kMap;
      DELTA_ASSIGN_OR_RETURN(Node key,
                             BuildNode(in_map.key_type(), mt.key_type(), false,
                                       ChildColumnPath(node.path, "key"), options));
      DELTA_ASSIGN_OR_RETURN(
          Node value,
          BuildNode(in_map.item_type(), mt.value_type(), mt.value_contains_null(),
                    ChildColumnPath(node.path, "value"), options));
      node.has_required = true;   // keys are never NULL
      node.input_index = {0, 1};  // the entries struct: key, value
      node.children.push_back(std::move(key));
      node.children.push_back(std::move(value));
      return node;
    }
    default:
      break;
  }
  // Primitive target: equal Delta types (another Arrow representation) or lossless.
  node.keep_dictionary = options.keep_dictionaries && IsStringDictionary(*in_type) &&
                         node.out_type->id() == arrow::Type::STRING;
  auto in_delta = FromArrowType(*in_type);
  if (!in_delta || !(*in_delta)->is_primitive()) {
    return TypeMismatch(node.path, *in_type, *target, options);
  }
  if (!(*in_delta)->Equals(*target) && !IsLosslessWriteCast(**in_delta, *target)) {
    return TypeMismatch(node.path, *in_type, *target, options);
  }
  if (!in_type->Equals(*node.out_type) &&
      !arrow::compute::CanCast(*in_type, *node.out_type)) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "column '{}' of {}: no Arrow cast from {} to {}", node.path,
                     TableLabel(options), in_type->ToString(), node.out_type->ToString());
  }
  node.kind = Node::Kind::kCast;
  return node;
}

Result<std::shared_ptr<arrow::Array>> ConformArray(
    const Node& node, const std::shared_ptr<arrow::Array>& in,
    const ConformOptions& options);

/// Conform the (unsliced) children of `data`, keeping its buffers and offset.
Result<std::shared_ptr<arrow::ArrayData>> ConformStructData(
    const Node& node, const std::shared_ptr<arrow::ArrayData>& data,
    const std::shared_ptr<arrow::DataType>& out_type, const ConformOptions& options) {
  std::vector<std::shared_ptr<arrow::ArrayData>> children;
  const int64_t child_length = data->offset + data->length;
  for (size_t t = 0; t < node.children.size(); ++t) {
    const Node& child = node.children[t];
    int idx = node.input_index[t];
    std::shared_ptr<arrow::Array> out;
    if (idx < 0) {
      DELTA_ARROW_ASSIGN_OR_RETURN(out,
                                   arrow::MakeArrayOfNull(child.out_type, child_length),
                                   ErrorCode::kIOError, "allocating NULLs");
    } else {
      DELTA_ASSIGN_OR_RETURN(
          out, ConformArray(child,
                            arrow::MakeArray(data->child_data[static_cast<size_t>(idx)]),
                            options));
    }
    children.push_back(out->data());
  }
  return arrow::ArrayData::Make(out_type, data->length, {data->buffers[0]},
                                std::move(children), data->null_count, data->offset);
}

Result<std::shared_ptr<arrow::Array>> ConformArray(
    const Node& node, const std::shared_ptr<arrow::Array>& in,
    const ConformOptions& options) {
  switch (node.kind) {
    case Node::Kind::kNull: {
      DELTA_ARROW_ASSIGN_OR_RETURN(auto out,
                                   arrow::MakeArrayOfNull(node.out_type, in->length()),
                                   ErrorCode::kIOError, "allocating NULLs");
      return out;
    }
    case Node::Kind::kCast: {
      if (in->type()->Equals(*node.out_type)) return in;
      if (node.keep_dictionary && in->type()->Equals(*node.in_type)) return in;
      auto cast =
          arrow::compute::Cast(*in, node.out_type, arrow::compute::CastOptions::Safe());
      if (!cast.ok()) {
        return MakeError(
            ErrorCode::kSchemaMismatch,
            "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE: a value of column '{}' does "
            "not fit {} when cast from input type {} to table type {}: {}",
            node.path, TableLabel(options), DescribeInput(*in->type()),
            node.target->ToString(), cast.status().message());
      }
      return *cast;
    }
    case Node::Kind::kStruct: {
      DELTA_ASSIGN_OR_RETURN(auto data,
                             ConformStructData(node, in->data(), node.out_type, options));
      return arrow::MakeArray(data);
    }
    case Node::Kind::kList: {
      std::shared_ptr<arrow::Array> list = in;
      if (node.list_type != nullptr) {
        DELTA_ARROW_ASSIGN_OR_RETURN(
            list,
            arrow::compute::Cast(*in, node.list_type,
                                 arrow::compute::CastOptions::Safe()),
            ErrorCode::kSchemaMismatch, fmt::format("column '{}'", node.path));
      }
      const auto& data = list->data();
      DELTA_ASSIGN_OR_RETURN(
          auto values,
          ConformArray(node.children[0], arrow::MakeArray(data->child_data[0]), options));
      return arrow::MakeArray(arrow::ArrayData::Make(
          node.out_type, data->length, {data->buffers[0], data->buffers[1]},
          {values->data()}, data->null_count, data->offset));
    }
    case Node::Kind::kMap: {
      const auto& data = in->data();
      const auto& entries = data->child_data[0];
      const auto& out_map = static_cast<const arrow::MapType&>(*node.out_type);
      DELTA_ASSIGN_OR_RETURN(
          auto out_entries,
          ConformStructData(node, entries, out_map.value_type(), options));
      return arrow::MakeArray(arrow::ArrayData::Make(
          node.out_type, data->length, {data->buffers[0], data->buffers[1]},
          {out_entries}, data->null_count, data->offset));
    }
  }
  return MakeError(ErrorCode::kInternal, "unhandled conform plan for '{}'", node.path);
}

// ---------------------------------------------------------------------------------
// NOT NULL enforcement on the output arrays.

struct Violation {
  const Node* node = nullptr;
  int64_t count = 0;  ///< distinct top-level rows
  int64_t first_row = -1;
  int64_t last_row = -1;
};

void Record(const Node& node, int64_t row, std::vector<Violation>* out) {
  for (Violation& v : *out) {
    if (v.node != &node) continue;
    if (v.last_row != row) {
      ++v.count;
      v.last_row = row;
      if (row < v.first_row) v.first_row = row;
    }
    return;
  }
  out->push_back(Violation{&node, 1, row, row});
}

/// `row_of[i]`: the top-level row of element i, or -1 when it is not a live value.
/// `ancestor_null[i]`: an enclosing struct is NULL (Spark: then NOT NULL children
/// are violated).
void CheckNotNull(const Node& node, const arrow::Array& array,
                  const std::vector<int64_t>& row_of,
                  const std::vector<uint8_t>& ancestor_null,
                  std::vector<Violation>* out) {
  if (!node.has_required) return;
  const int64_t n = array.length();
  if (!node.nullable) {
    for (int64_t i = 0; i < n; ++i) {
      if (row_of[i] >= 0 && (ancestor_null[i] || array.IsNull(i)))
        Record(node, row_of[i], out);
    }
  }
  if (node.kind == Node::Kind::kStruct) {
    const auto& st = static_cast<const arrow::StructArray&>(array);
    std::vector<uint8_t> child_null(ancestor_null);
    for (int64_t i = 0; i < n; ++i) child_null[i] = child_null[i] || st.IsNull(i);
    for (size_t c = 0; c < node.children.size(); ++c) {
      CheckNotNull(node.children[c], *st.field(static_cast<int>(c)), row_of, child_null,
                   out);
    }
  } else if (node.kind == Node::Kind::kList || node.kind == Node::Kind::kMap) {
    const auto& list = static_cast<const arrow::BaseListArray<arrow::ListType>&>(array);
    std::shared_ptr<arrow::Array> values =
        node.kind == Node::Kind::kList
            ? static_cast<const arrow::ListArray&>(array).values()
            : static_cast<const arrow::MapArray&>(array).values();
    std::vector<int64_t> element_row(static_cast<size_t>(values->length()), -1);
    for (int64_t i = 0; i < n; ++i) {
      if (row_of[i] < 0 || ancestor_null[i] || array.IsNull(i)) continue;
      for (int64_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
        element_row[static_cast<size_t>(j)] = row_of[i];
      }
    }
    std::vector<uint8_t> none(element_row.size(), 0);
    if (node.kind == Node::Kind::kList) {
      CheckNotNull(node.children[0], *values, element_row, none, out);
    } else {
      const auto& map = static_cast<const arrow::MapArray&>(array);
      CheckNotNull(node.children[0], *map.keys(), element_row, none, out);
      CheckNotNull(node.children[1], *map.items(), element_row, none, out);
    }
  }
}

}  // namespace

BatchConformer::BatchConformer(std::shared_ptr<arrow::Schema> input,
                               std::shared_ptr<arrow::Schema> output,
                               std::unique_ptr<Node> root, ConformOptions options)
    : input_schema_(std::move(input)),
      output_schema_(std::move(output)),
      root_(std::move(root)),
      options_(std::move(options)) {}

BatchConformer::~BatchConformer() = default;

Result<std::unique_ptr<BatchConformer>> BatchConformer::Make(
    SchemaRef target, std::shared_ptr<arrow::Schema> input, ConformOptions options) {
  if (target == nullptr || input == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument, "BatchConformer needs both schemas");
  }
  DELTA_RETURN_IF_ERROR(InitializeArrowCompute());
  DELTA_ASSIGN_OR_RETURN(auto output, ToArrowSchema(*target));
  auto root = std::make_unique<Node>();
  root->kind = Node::Kind::kStruct;
  root->target = target;
  DELTA_RETURN_IF_ERROR(BuildStructChildren(input->fields(), *target, options.by_position,
                                            root.get(), options));
  return std::unique_ptr<BatchConformer>(new BatchConformer(
      std::move(input), std::move(output), std::move(root), std::move(options)));
}

Result<std::shared_ptr<arrow::RecordBatch>> BatchConformer::Conform(
    const arrow::RecordBatch& batch, int64_t first_row) const {
  if (batch.num_columns() != input_schema_->num_fields()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "batch has {} columns, the conformer was made for {}",
                     batch.num_columns(), input_schema_->num_fields());
  }
  const int64_t n = batch.num_rows();
  std::vector<std::shared_ptr<arrow::Array>> columns;
  columns.reserve(root_->children.size());
  for (size_t t = 0; t < root_->children.size(); ++t) {
    const Node& child = root_->children[t];
    int idx = root_->input_index[t];
    if (idx < 0) {
      DELTA_ARROW_ASSIGN_OR_RETURN(auto nulls, arrow::MakeArrayOfNull(child.out_type, n),
                                   ErrorCode::kIOError, "allocating NULLs");
      columns.push_back(std::move(nulls));
    } else {
      DELTA_ASSIGN_OR_RETURN(auto out, ConformArray(child, batch.column(idx), options_));
      columns.push_back(std::move(out));
    }
  }
  if (root_->has_required) {
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = i;
    std::vector<uint8_t> none(static_cast<size_t>(n), 0);
    std::vector<Violation> violations;
    for (size_t t = 0; t < root_->children.size(); ++t) {
      CheckNotNull(root_->children[t], *columns[t], rows, none, &violations);
    }
    if (!violations.empty()) {
      const Violation& v = violations.front();
      Error error = MakeError(
          ErrorCode::kConstraintViolation,
          "DELTA_NOT_NULL_CONSTRAINT_VIOLATED: NOT NULL constraint violated for column: "
          "{}. {} row(s) of this batch violate it in {}; the first is input row {}",
          v.node->path, v.count, TableLabel(options_), first_row + v.first_row + 1);
      error.details = {{"constraint", "NOT NULL"},
                       {"column", v.node->path},
                       {"expression", v.node->path + " IS NOT NULL"},
                       {"violating_rows", std::to_string(v.count)},
                       {"first_row", std::to_string(first_row + v.first_row + 1)}};
      return error;
    }
  }
  // Columns kept dictionary-encoded (keep_dictionaries) show their type.
  std::shared_ptr<arrow::Schema> schema = output_schema_;
  for (size_t t = 0; t < columns.size(); ++t) {
    const auto& field = output_schema_->field(static_cast<int>(t));
    if (columns[t]->type()->Equals(*field->type())) continue;
    DELTA_ARROW_ASSIGN_OR_RETURN(
        schema,
        schema->SetField(static_cast<int>(t), field->WithType(columns[t]->type())),
        ErrorCode::kInternal, "conformed schema");
  }
  return arrow::RecordBatch::Make(std::move(schema), n, std::move(columns));
}

}  // namespace deltaguard

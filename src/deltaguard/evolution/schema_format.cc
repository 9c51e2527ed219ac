#include "deltaguard/evolution/schema_format.h"

#include <algorithm>
#include <vector>

namespace deltaguard {
namespace {

struct Row {
  char marker;  // ' ', '~', '-', '+'
  std::string left;
  std::string right;
};

std::string Indent(int depth) { return std::string(static_cast<size_t>(depth) * 2, ' '); }

std::string Cell(std::string_view name, const DataType& type, bool not_null, int depth) {
  std::string out = Indent(depth);
  out += name;
  out += ": ";
  out += type.ToString();
  if (not_null) out += " NOT NULL";
  return out;
}

// True when the type is, or contains through arrays and maps, a struct: such types are
// expanded into child rows when both sides have them.
bool ContainsStruct(const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kStruct:
      return true;
    case TypeKind::kArray:
      return ContainsStruct(*static_cast<const ArrayType&>(type).element_type());
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(type);
      return ContainsStruct(*m.key_type()) || ContainsStruct(*m.value_type());
    }
    default:
      return false;
  }
}

// True when the two types differ, ignoring nullability (input nullability is ignored).
bool TypesDiffer(const DataType& a, const DataType& b) {
  if (a.kind() != b.kind()) return true;
  switch (a.kind()) {
    case TypeKind::kStruct: {
      const auto& sa = static_cast<const StructType&>(a);
      const auto& sb = static_cast<const StructType&>(b);
      if (sa.num_fields() != sb.num_fields()) return true;
      for (const StructField& f : sa.fields()) {
        const int j = sb.FieldIndexCaseInsensitive(f.name);
        if (j < 0 || TypesDiffer(*f.type, *sb.field(static_cast<size_t>(j)).type)) {
          return true;
        }
      }
      return false;
    }
    case TypeKind::kArray:
      return TypesDiffer(*static_cast<const ArrayType&>(a).element_type(),
                         *static_cast<const ArrayType&>(b).element_type());
    case TypeKind::kMap: {
      const auto& ma = static_cast<const MapType&>(a);
      const auto& mb = static_cast<const MapType&>(b);
      return TypesDiffer(*ma.key_type(), *mb.key_type()) ||
             TypesDiffer(*ma.value_type(), *mb.value_type());
    }
    default:
      return !a.Equals(b);
  }
}

void EmitStructFields(const StructType& table, const StructType& input, int depth,
                      std::vector<Row>* rows);

// One node present on both sides: `left_name` keeps the table's case, `right_name` the
// input's.
void EmitBoth(std::string_view left_name, std::string_view right_name,
              const DataType& table, bool table_not_null, const DataType& input,
              int depth, std::vector<Row>* rows) {
  const bool expand =
      table.kind() == input.kind() && ContainsStruct(table) && ContainsStruct(input);
  if (!expand) {
    rows->push_back(Row{TypesDiffer(table, input) ? '~' : ' ',
                        Cell(left_name, table, table_not_null, depth),
                        Cell(right_name, input, false, depth)});
    return;
  }
  const std::string head = table.TypeName();  // struct, array or map
  std::string left = Indent(depth) + std::string(left_name) + ": " + head;
  if (table_not_null) left += " NOT NULL";
  rows->push_back(
      Row{' ', std::move(left), Indent(depth) + std::string(right_name) + ": " + head});
  switch (table.kind()) {
    case TypeKind::kStruct:
      EmitStructFields(static_cast<const StructType&>(table),
                       static_cast<const StructType&>(input), depth + 1, rows);
      break;
    case TypeKind::kArray:
      EmitBoth("element", "element", *static_cast<const ArrayType&>(table).element_type(),
               false, *static_cast<const ArrayType&>(input).element_type(), depth + 1,
               rows);
      break;
    default: {  // kMap
      const auto& mt = static_cast<const MapType&>(table);
      const auto& mi = static_cast<const MapType&>(input);
      EmitBoth("key", "key", *mt.key_type(), false, *mi.key_type(), depth + 1, rows);
      EmitBoth("value", "value", *mt.value_type(), false, *mi.value_type(), depth + 1,
               rows);
      break;
    }
  }
}

void EmitStructFields(const StructType& table, const StructType& input, int depth,
                      std::vector<Row>* rows) {
  std::vector<bool> matched(input.num_fields(), false);
  for (const StructField& f : table.fields()) {
    const int j = input.FieldIndexCaseInsensitive(f.name);
    if (j < 0) {
      rows->push_back(Row{'-', Cell(f.name, *f.type, !f.nullable, depth), ""});
      continue;
    }
    matched[static_cast<size_t>(j)] = true;
    const StructField& u = input.field(static_cast<size_t>(j));
    EmitBoth(f.name, u.name, *f.type, !f.nullable, *u.type, depth, rows);
  }
  for (size_t j = 0; j < input.num_fields(); ++j) {
    if (matched[j]) continue;
    const StructField& u = input.field(j);
    rows->push_back(Row{'+', "", Cell(u.name, *u.type, false, depth)});
  }
}

}  // namespace

std::string FormatSchemaComparison(const StructType& table, const StructType& input,
                                   std::string_view left_title,
                                   std::string_view right_title) {
  std::vector<Row> rows;
  EmitStructFields(table, input, 0, &rows);
  size_t width = left_title.size();
  size_t right_width = right_title.size();
  for (const Row& r : rows) {
    width = std::max(width, r.left.size());
    right_width = std::max(right_width, r.right.size());
  }

  auto line = [&](char marker, std::string_view left, std::string_view right) {
    std::string out;
    out += marker;
    out += ' ';
    out += left;
    out.append(width - left.size(), ' ');
    out += " | ";
    out += right;
    // No trailing blanks when the right cell is empty.
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
    return out;
  };
  std::string out = line(' ', left_title, right_title);
  out += "  " + std::string(width, '-') + "-+-" + std::string(right_width, '-') + "\n";
  for (const Row& r : rows) out += line(r.marker, r.left, r.right);
  out += "(~ type differs, - only in the ";
  out += left_title;
  out += ", + only in the ";
  out += right_title;
  out += ")";
  return out;
}

}  // namespace deltaguard

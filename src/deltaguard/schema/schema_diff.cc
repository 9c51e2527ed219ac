#include "deltaguard/schema/schema_diff.h"

#include <optional>

#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// The struct reached by descending through arrays and maps (element/value), if any.
const StructType* InnerStruct(const DataType& type, std::string* suffix) {
  const DataType* t = &type;
  while (true) {
    if (t->kind() == TypeKind::kStruct) return static_cast<const StructType*>(t);
    if (t->kind() == TypeKind::kArray) {
      *suffix += ".element";
      t = static_cast<const ArrayType*>(t)->element_type().get();
    } else if (t->kind() == TypeKind::kMap) {
      *suffix += ".value";
      t = static_cast<const MapType*>(t)->value_type().get();
    } else {
      return nullptr;
    }
  }
}

// True when two types have the same shape ignoring nested struct contents (which are
// diffed field by field instead).
bool SameOuterShape(const DataType& a, const DataType& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case TypeKind::kStruct:
      return true;
    case TypeKind::kArray:
      return SameOuterShape(*static_cast<const ArrayType&>(a).element_type(),
                            *static_cast<const ArrayType&>(b).element_type());
    case TypeKind::kMap:
      return static_cast<const MapType&>(a).key_type()->Equals(
                 *static_cast<const MapType&>(b).key_type()) &&
             SameOuterShape(*static_cast<const MapType&>(a).value_type(),
                            *static_cast<const MapType&>(b).value_type());
    default:
      return a.Equals(b);
  }
}

void DiffStructs(const StructType& before, const StructType& after,
                 const std::string& prefix, std::vector<SchemaDiffEntry>* out) {
  bool use_ids = true;
  for (const auto& f : before.fields()) use_ids &= f.column_mapping_id().has_value();
  for (const auto& f : after.fields()) use_ids &= f.column_mapping_id().has_value();

  std::vector<bool> matched_before(before.num_fields(), false);
  for (size_t ai = 0; ai < after.num_fields(); ++ai) {
    const StructField& nf = after.field(ai);
    int bi = -1;
    if (use_ids) {
      for (size_t i = 0; i < before.num_fields(); ++i) {
        if (before.field(i).column_mapping_id() == nf.column_mapping_id()) {
          bi = static_cast<int>(i);
          break;
        }
      }
    } else {
      bi = before.FieldIndexCaseInsensitive(nf.name);
    }
    std::string path = ChildColumnPath(prefix, nf.name);
    if (bi < 0) {
      out->push_back({SchemaDiffEntry::Kind::kAdded, path, "", "", nf.type->ToString()});
      continue;
    }
    matched_before[bi] = true;
    const StructField& of = before.field(bi);
    if (of.name != nf.name) {
      out->push_back({SchemaDiffEntry::Kind::kRenamed, path,
                      ChildColumnPath(prefix, of.name), of.name, nf.name});
    }
    if (!SameOuterShape(*of.type, *nf.type)) {
      out->push_back({SchemaDiffEntry::Kind::kTypeChanged, path, "", of.type->ToString(),
                      nf.type->ToString()});
    } else {
      std::string os, ns;
      const StructType* inner_before = InnerStruct(*of.type, &os);
      const StructType* inner_after = InnerStruct(*nf.type, &ns);
      if (inner_before && inner_after) {
        DiffStructs(*inner_before, *inner_after, path + ns, out);
      }
    }
    if (of.nullable != nf.nullable) {
      out->push_back({SchemaDiffEntry::Kind::kNullabilityChanged, path, "",
                      of.nullable ? "nullable" : "not null",
                      nf.nullable ? "nullable" : "not null"});
    }
    if (of.comment() != nf.comment()) {
      out->push_back({SchemaDiffEntry::Kind::kCommentChanged, path, "",
                      of.comment().value_or(""), nf.comment().value_or("")});
    }
  }
  for (size_t i = 0; i < before.num_fields(); ++i) {
    if (!matched_before[i]) {
      const StructField& of = before.field(i);
      out->push_back({SchemaDiffEntry::Kind::kDropped, ChildColumnPath(prefix, of.name),
                      "", of.type->ToString(), ""});
    }
  }
}

}  // namespace

std::string SchemaDiffEntry::ToString() const {
  switch (kind) {
    case Kind::kAdded:
      return fmt::format("added column '{}' ({})", path, to);
    case Kind::kDropped:
      return fmt::format("dropped column '{}' ({})", path, from);
    case Kind::kRenamed:
      return fmt::format("renamed column '{}' to '{}'", old_path, path);
    case Kind::kTypeChanged:
      return fmt::format("changed type of '{}' from {} to {}", path, from, to);
    case Kind::kNullabilityChanged:
      return fmt::format("changed '{}' from {} to {}", path, from, to);
    case Kind::kCommentChanged:
      return fmt::format("changed comment of '{}' from '{}' to '{}'", path, from, to);
    case Kind::kMoved:
      return fmt::format("moved column '{}'", path);
  }
  return path;
}

std::vector<SchemaDiffEntry> DiffSchemas(const StructType& before,
                                         const StructType& after) {
  std::vector<SchemaDiffEntry> out;
  DiffStructs(before, after, "", &out);
  return out;
}

}  // namespace deltaguard

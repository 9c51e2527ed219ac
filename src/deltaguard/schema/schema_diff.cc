#include "deltaguard/schema/schema_diff.h"

#include <algorithm>
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

// Metadata entries that are not compared as "metadata": the comment has its own kind,
// column mapping is identity (ids are how fields are matched), type history follows the
// type.
bool IgnoredMetadataKey(std::string_view key) {
  return key == "comment" || key == "delta.typeChanges" ||
         key.substr(0, 19) == "delta.columnMapping";
}

// The metadata entries of `a` that `b` lacks or holds with another value, as key=json.
std::string MetadataOnlyIn(const FieldMetadata& a, const FieldMetadata& b) {
  std::string out;
  for (const auto& [key, raw] : a.entries()) {
    if (IgnoredMetadataKey(key)) continue;
    const std::string* other = b.FindRaw(key);
    if (other && *other == raw) continue;
    if (!out.empty()) out += ", ";
    out += key + "=" + raw;
  }
  return out;
}

// The positions (into `old_positions`) that are not part of one longest strictly
// increasing run: the fewest matched fields that moved. O(n^2); structs are small.
std::vector<bool> MovedPositions(const std::vector<size_t>& old_positions) {
  size_t n = old_positions.size();
  std::vector<size_t> length(n, 1), prev(n, n);
  size_t best = n;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (old_positions[j] < old_positions[i] && length[j] + 1 > length[i]) {
        length[i] = length[j] + 1;
        prev[i] = j;
      }
    }
    if (best == n || length[i] > length[best]) best = i;
  }
  std::vector<bool> moved(n, true);
  for (size_t i = best; i < n; i = prev[i]) moved[i] = false;
  return moved;
}

std::vector<std::string> ChildParts(const std::vector<std::string>& parent,
                                    const std::string& name) {
  std::vector<std::string> parts = parent;
  parts.push_back(name);
  return parts;
}

void DiffStructs(const StructType& before, const StructType& after,
                 const std::string& prefix, const std::vector<std::string>& prefix_parts,
                 const SchemaDiffOptions& options, std::vector<SchemaDiffEntry>* out) {
  bool use_ids = true;
  for (const auto& f : before.fields()) use_ids &= f.column_mapping_id().has_value();
  for (const auto& f : after.fields()) use_ids &= f.column_mapping_id().has_value();

  std::vector<bool> matched_before(before.num_fields(), false);
  std::vector<size_t> matched_old, matched_new;  // positions of matched pairs
  for (size_t ai = 0; ai < after.num_fields(); ++ai) {
    const StructField& nf = after.field(ai);
    int bi = -1;
    // The same position first: schemas mostly keep their order, and this keeps a diff
    // of two wide schemas linear (a name or id is unique within a struct, so the
    // search below would find the same field).
    const bool same_place =
        ai < before.num_fields() &&
        (use_ids ? before.field(ai).column_mapping_id() == nf.column_mapping_id()
                 : before.field(ai).name == nf.name);
    if (same_place) {
      bi = static_cast<int>(ai);
    } else if (use_ids) {
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
      out->back().to_type = nf.type;
      out->back().to_nullable = nf.nullable;
      out->back().to_index = ai;
      out->back().parts = ChildParts(prefix_parts, nf.name);
      continue;
    }
    matched_before[bi] = true;
    matched_old.push_back(static_cast<size_t>(bi));
    matched_new.push_back(ai);
    const StructField& of = before.field(bi);
    auto push = [&](SchemaDiffEntry entry) {
      entry.from_type = of.type;
      entry.to_type = nf.type;
      entry.from_nullable = of.nullable;
      entry.to_nullable = nf.nullable;
      entry.from_index = static_cast<size_t>(bi);
      entry.to_index = ai;
      entry.parts = ChildParts(prefix_parts, nf.name);
      out->push_back(std::move(entry));
    };
    if (of.name != nf.name) {
      push({SchemaDiffEntry::Kind::kRenamed, path, ChildColumnPath(prefix, of.name),
            of.name, nf.name});
    }
    if (!SameOuterShape(*of.type, *nf.type)) {
      push({SchemaDiffEntry::Kind::kTypeChanged, path, "", of.type->ToString(),
            nf.type->ToString()});
    } else {
      std::string os, ns;
      const StructType* inner_before = InnerStruct(*of.type, &os);
      const StructType* inner_after = InnerStruct(*nf.type, &ns);
      if (inner_before && inner_after) {
        std::vector<std::string> inner_parts = ChildParts(prefix_parts, nf.name);
        if (!ns.empty()) {  // ".element", ".value.element", ...
          for (auto step : Split(std::string_view(ns).substr(1), '.')) {
            inner_parts.emplace_back(step);
          }
        }
        DiffStructs(*inner_before, *inner_after, path + ns, inner_parts, options, out);
      }
    }
    if (of.nullable != nf.nullable) {
      push({SchemaDiffEntry::Kind::kNullabilityChanged, path, "",
            of.nullable ? "nullable" : "not null",
            nf.nullable ? "nullable" : "not null"});
    }
    if (of.comment() != nf.comment()) {
      push({SchemaDiffEntry::Kind::kCommentChanged, path, "", of.comment().value_or(""),
            nf.comment().value_or("")});
    }
    if (options.report_metadata) {
      std::string from = MetadataOnlyIn(of.metadata, nf.metadata);
      std::string to = MetadataOnlyIn(nf.metadata, of.metadata);
      if (!from.empty() || !to.empty()) {
        push({SchemaDiffEntry::Kind::kMetadataChanged, path, "", from, to});
      }
    }
  }
  if (options.report_moves) {
    std::vector<bool> moved = MovedPositions(matched_old);
    // Ranks among the fields both sides have, so added or dropped fields never make a
    // field look moved: the rank of old position p is the number of matched old
    // positions below it.
    std::vector<size_t> sorted_old = matched_old;
    std::sort(sorted_old.begin(), sorted_old.end());
    for (size_t k = 0; k < moved.size(); ++k) {
      if (!moved[k]) continue;
      const StructField& of = before.field(matched_old[k]);
      const StructField& nf = after.field(matched_new[k]);
      size_t old_rank =
          std::lower_bound(sorted_old.begin(), sorted_old.end(), matched_old[k]) -
          sorted_old.begin();
      out->push_back({SchemaDiffEntry::Kind::kMoved, ChildColumnPath(prefix, nf.name), "",
                      std::to_string(old_rank + 1), std::to_string(k + 1)});
      out->back().from_type = of.type;
      out->back().to_type = nf.type;
      out->back().from_index = matched_old[k];
      out->back().to_index = matched_new[k];
      out->back().parts = ChildParts(prefix_parts, nf.name);
    }
  }
  for (size_t i = 0; i < before.num_fields(); ++i) {
    if (!matched_before[i]) {
      const StructField& of = before.field(i);
      out->push_back({SchemaDiffEntry::Kind::kDropped, ChildColumnPath(prefix, of.name),
                      "", of.type->ToString(), ""});
      out->back().from_type = of.type;
      out->back().from_nullable = of.nullable;
      out->back().from_index = i;
      out->back().parts = ChildParts(prefix_parts, of.name);
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
      return fmt::format("moved column '{}' from position {} to {}", path, from, to);
    case Kind::kMetadataChanged:
      return fmt::format("changed metadata of '{}' from '{}' to '{}'", path, from, to);
  }
  return path;
}

std::vector<SchemaDiffEntry> DiffSchemas(const StructType& before,
                                         const StructType& after,
                                         const SchemaDiffOptions& options) {
  std::vector<SchemaDiffEntry> out;
  DiffStructs(before, after, "", {}, options, &out);
  return out;
}

}  // namespace deltaguard

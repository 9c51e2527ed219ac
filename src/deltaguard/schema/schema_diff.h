/// \file deltaguard/schema/schema_diff.h
/// The difference between two schemas as a list of column-level changes (added,
/// dropped, renamed, retyped, nullability, comment), used by `history` to say what
/// changed at each version and later by drift detection.
#pragma once

#include <string>
#include <vector>

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

struct SchemaDiffEntry {
  enum class Kind {
    kAdded,
    kDropped,
    kRenamed,
    kTypeChanged,
    kNullabilityChanged,
    kCommentChanged,
    kMoved  ///< reserved: DiffSchemas does not report reordering yet
  };
  Kind kind;
  std::string path;      ///< dotted logical path in the new schema (old one for kDropped)
  std::string old_path;  ///< for kRenamed
  std::string from;      ///< old type / nullability / comment
  std::string to;        ///< new type / nullability / comment

  /// One-line description, e.g. "added column 'channel' (string)".
  std::string ToString() const;
};

/// Compare `before` and `after`. Fields are matched by column-mapping id when both
/// sides carry ids (so a rename shows as kRenamed), else by name case-insensitively.
/// Nested struct fields are compared recursively (through arrays and maps too).
std::vector<SchemaDiffEntry> DiffSchemas(const StructType& before,
                                         const StructType& after);

}  // namespace deltaguard

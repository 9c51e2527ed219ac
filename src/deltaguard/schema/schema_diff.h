/// \file deltaguard/schema/schema_diff.h
/// The difference between two schemas as a list of column-level changes (added,
/// dropped, renamed, retyped, nullability, comment; on request moved and metadata), used
/// by `history` to say what changed at each version and by the drift classifier
/// (drift/classify.h).
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
    kMoved,           ///< only with SchemaDiffOptions::report_moves
    kMetadataChanged  ///< only with SchemaDiffOptions::report_metadata
  };
  Kind kind;
  std::string path;      ///< dotted logical path in the new schema (old one for kDropped)
  std::string old_path;  ///< for kRenamed
  std::string from;      ///< old type / nullability / comment
  std::string to;        ///< new type / nullability / comment
  /// The types and nullability of the matched fields (the one side for kAdded /
  /// kDropped), for callers that classify a change further; from_type is null for
  /// kAdded, to_type for kDropped.
  DataTypeRef from_type;
  DataTypeRef to_type;
  bool from_nullable = true;
  bool to_nullable = true;
  /// `path` as its parts (field names, "element", "value"), for FormatColumnPath.
  std::vector<std::string> parts;
  /// 0-based positions in the parent struct (before / after), where the side exists.
  size_t from_index = 0;
  size_t to_index = 0;

  /// One-line description, e.g. "added column 'channel' (string)".
  std::string ToString() const;
};

struct SchemaDiffOptions {
  /// Report kMoved for matched fields whose order changed within their struct: the
  /// fewest fields that, taken out, leave the others in their old order (the rest form
  /// a longest increasing run of old positions). `from`/`to` are 1-based positions
  /// among the fields both sides have (added and dropped fields do not count).
  bool report_moves = false;
  /// Report kMetadataChanged when a matched field's metadata differs in keys other than
  /// the comment, column mapping (`delta.columnMapping.*`) and `delta.typeChanges`;
  /// `from`/`to` list the differing entries as `key=json`.
  bool report_metadata = false;
};

/// Compare `before` and `after`. Fields are matched by column-mapping id when both
/// sides carry ids (so a rename shows as kRenamed), else by name case-insensitively.
/// Nested struct fields are compared recursively (through arrays and maps too).
std::vector<SchemaDiffEntry> DiffSchemas(const StructType& before,
                                         const StructType& after,
                                         const SchemaDiffOptions& options = {});

}  // namespace deltaguard

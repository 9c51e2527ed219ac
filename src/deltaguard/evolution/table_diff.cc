// DiffCommitActions (table_diff.h): one commit's metaData/protocol against the state
// before it.

#include "deltaguard/evolution/table_diff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "deltaguard/schema/schema_json.h"

namespace deltaguard {
namespace {

const std::string* FindValue(const StringMap& m, const std::string& key) {
  for (const auto& [k, v] : m) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool SameProtocol(const Protocol& a, const Protocol& b) {
  return a.min_reader_version == b.min_reader_version &&
         a.min_writer_version == b.min_writer_version &&
         a.reader_features == b.reader_features && a.writer_features == b.writer_features;
}

// Partitioning and properties of `md` against the previous metaData.
void DiffMetadata(const Metadata& old_md, const Metadata& md, CommitTableChanges* out) {
  if (old_md.partition_columns != md.partition_columns) {
    out->partitioning.emplace(old_md.partition_columns, md.partition_columns);
  }
  for (const auto& [k, v] : md.configuration) {
    // A property absent before counts as "" (so setting it to "" is no change).
    const std::string* old = FindValue(old_md.configuration, k);
    if ((old ? *old : std::string()) != v) out->properties_set.emplace_back(k, v);
  }
  for (const auto& [k, v] : old_md.configuration) {
    if (!FindValue(md.configuration, k)) out->properties_unset.push_back(k);
  }
}

}  // namespace

bool CommitTableChanges::empty() const {
  return !schema_set_columns && columns.empty() && !metadata_without_schema &&
         !partitioning && properties_set.empty() && properties_unset.empty() && !protocol;
}

std::vector<std::string> CommitTableChanges::SchemaLines() const {
  std::vector<std::string> out;
  if (schema_set_columns) {
    out.push_back(fmt::format("schema set: {} column{}", *schema_set_columns,
                              *schema_set_columns == 1 ? "" : "s"));
  }
  for (const auto& c : columns) out.push_back(c.ToString());
  return out;
}

std::vector<std::string> CommitTableChanges::TableLines() const {
  std::vector<std::string> out;
  if (metadata_without_schema) out.push_back("metadata without a schema");
  if (partitioning) {
    out.push_back(fmt::format("partitioning changed from [{}] to [{}]",
                              fmt::join(partitioning->first, ", "),
                              fmt::join(partitioning->second, ", ")));
  }
  for (const auto& [k, v] : properties_set) {
    out.push_back(fmt::format("set property {}={}", k, v));
  }
  for (const auto& k : properties_unset)
    out.push_back(fmt::format("unset property {}", k));
  if (protocol) {
    std::string feats;
    if (protocol->writer_features) {
      feats = fmt::format(" [{}]", fmt::join(*protocol->writer_features, ", "));
    }
    out.push_back(fmt::format("protocol reader {} writer {}{}",
                              protocol->min_reader_version, protocol->min_writer_version,
                              feats));
  }
  return out;
}

Result<CommitTableChanges> DiffCommitActions(const LoggedTableState& before,
                                             const std::optional<Metadata>& metadata,
                                             const std::optional<Protocol>& protocol,
                                             LoggedTableState* after) {
  CommitTableChanges out;
  LoggedTableState next = before;
  if (metadata && metadata->schema_string.empty()) {
    out.metadata_without_schema = true;
  } else if (metadata) {
    auto schema = ParseSchemaJson(metadata->schema_string);
    if (!schema) {
      Error err = schema.error();
      err.code = ErrorCode::kCorruptLog;  // the log, not the user, holds this text
      return err;
    }
    if (!before.schema) {
      out.schema_set_columns = (*schema)->num_fields();
    } else {
      out.columns = DiffSchemas(*before.schema, **schema);
    }
    if (before.metadata) DiffMetadata(*before.metadata, *metadata, &out);
    next.schema = *schema;
    next.metadata = *metadata;
  }
  if (protocol) {
    if (!before.protocol || !SameProtocol(*before.protocol, *protocol)) {
      out.protocol = *protocol;
    }
    next.protocol = *protocol;
  }
  *after = std::move(next);
  return out;
}

}  // namespace deltaguard

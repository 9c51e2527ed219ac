// MergeBuilder: the DeltaTable.merge-like fluent API over Merge (merge.h).

#include <utility>

#include "deltaguard/dml/merge.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/schema/column_path.h"

namespace deltaguard {

MergeBuilder::MergeBuilder(FileSystemRef fs, std::string path, BatchSource source,
                           std::string_view on, std::string target_alias,
                           std::string source_alias)
    : fs_(std::move(fs)), path_(std::move(path)) {
  spec_.source = std::move(source);
  spec_.target_alias = std::move(target_alias);
  spec_.source_alias = std::move(source_alias);
  auto parsed = ParseExpression(on);
  if (parsed) {
    spec_.on = *parsed;
  } else {
    error_ = WithContext(parsed.error(), "MERGE ON condition");
  }
}

MergeBuilder& MergeBuilder::Add(MergeWhen::Kind kind, std::string_view condition,
                                const Sets& sets,
                                const std::vector<std::string>& except) {
  if (error_) return *this;
  MergeWhen when;
  when.kind = kind;
  if (!condition.empty()) {
    auto parsed = ParseExpression(condition);
    if (!parsed) {
      error_ = WithContext(parsed.error(), "MERGE clause condition");
      return *this;
    }
    when.condition = *parsed;
  }
  for (const auto& [column, value] : sets) {
    auto path = ParseColumnPath(column);
    if (!path) {
      error_ = path.error();
      return *this;
    }
    auto parsed = ParseExpression(value);
    if (!parsed) {
      error_ = WithContext(parsed.error(), "value of column " + column);
      return *this;
    }
    if (kind == MergeWhen::Kind::kNotMatchedInsert) {
      when.insert_columns.push_back(std::move(*path));
      when.insert_values.push_back(*parsed);
    } else {
      when.assignments.push_back({std::move(*path), *parsed});
    }
  }
  for (const auto& column : except) {
    auto path = ParseColumnPath(column);
    if (!path) {
      error_ = path.error();
      return *this;
    }
    when.except_columns.push_back(std::move(*path));
  }
  spec_.clauses.push_back(std::move(when));
  return *this;
}

MergeBuilder& MergeBuilder::WhenMatchedUpdateAll(std::string_view condition,
                                                 const std::vector<std::string>& except) {
  return Add(MergeWhen::Kind::kMatchedUpdateAll, condition, {}, except);
}
MergeBuilder& MergeBuilder::WhenMatchedUpdate(std::string_view condition,
                                              const Sets& set) {
  return Add(MergeWhen::Kind::kMatchedUpdate, condition, set, {});
}
MergeBuilder& MergeBuilder::WhenMatchedDelete(std::string_view condition) {
  return Add(MergeWhen::Kind::kMatchedDelete, condition, {}, {});
}
MergeBuilder& MergeBuilder::WhenNotMatchedInsertAll(
    std::string_view condition, const std::vector<std::string>& except) {
  return Add(MergeWhen::Kind::kNotMatchedInsertAll, condition, {}, except);
}
MergeBuilder& MergeBuilder::WhenNotMatchedInsert(std::string_view condition,
                                                 const Sets& values) {
  return Add(MergeWhen::Kind::kNotMatchedInsert, condition, values, {});
}
MergeBuilder& MergeBuilder::WhenNotMatchedBySourceUpdate(std::string_view condition,
                                                         const Sets& set) {
  return Add(MergeWhen::Kind::kNotMatchedBySourceUpdate, condition, set, {});
}
MergeBuilder& MergeBuilder::WhenNotMatchedBySourceDelete(std::string_view condition) {
  return Add(MergeWhen::Kind::kNotMatchedBySourceDelete, condition, {}, {});
}
MergeBuilder& MergeBuilder::WithSchemaEvolution(bool enabled) {
  spec_.schema_evolution = enabled;
  return *this;
}
MergeBuilder& MergeBuilder::SourceMemoryLimit(int64_t bytes) {
  spec_.source_memory_limit = bytes;
  return *this;
}
MergeBuilder& MergeBuilder::EvolutionOptionHint(std::string hint) {
  spec_.evolution_option_hint = std::move(hint);
  return *this;
}
MergeBuilder& MergeBuilder::WithContract(std::shared_ptr<const Contract> contract,
                                         std::string object) {
  spec_.contract = std::move(contract);
  spec_.contract_object = std::move(object);
  return *this;
}
MergeBuilder& MergeBuilder::IgnoreUnmatchedSourceColumns(bool enabled) {
  spec_.ignore_unmatched_source_columns = enabled;
  return *this;
}

Result<MergeResult> MergeBuilder::Execute(const SessionSettings& session) {
  if (error_) return *error_;
  return Merge(fs_, path_, spec_, session);
}

}  // namespace deltaguard

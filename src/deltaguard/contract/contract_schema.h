/// \file deltaguard/contract/contract_schema.h
/// The Delta schema a contract's schema object declares, and the drift side built
/// from it. Property identity (docs/contracts.md "Identity") is the property's `id`,
/// else its name (case-insensitive); a property whose `aliases` name an old property
/// takes that property's identity, so a rename is a rename and not a drop plus an add.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "deltaguard/contract/contract.h"
#include "deltaguard/drift/classify.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The object's columns in order: the resolved types, nullable unless `required`,
/// descriptions as comments. kInvalidArgument naming a property whose type did not
/// resolve.
Result<SchemaRef> ContractSchema(const ContractObject& object);

/// Identity keys to synthetic column-mapping ids, shared by the two sides of a
/// comparison so that DiffSchemas (schema/schema_diff.h) matches properties by
/// identity.
class ContractIdentities {
 public:
  /// The key of `p`: "id:<id>", else "name:<lower name>".
  static std::string KeyOf(const ContractProperty& p);
  /// Register the properties of `before` (the old side) at every depth.
  void AddBefore(const std::vector<ContractProperty>& before);
  /// The id for `p` of the new side: its own key's, or the id of an old property one of
  /// its aliases names.
  int64_t IdFor(const ContractProperty& p, const std::string& parent_path, bool after);

 private:
  int64_t Intern(const std::string& key);
  std::map<std::string, int64_t> ids_;
  /// old property path (lower-case, dotted) -> its key, for alias lookups.
  std::map<std::string, std::string> by_old_path_;
  void AddBeforeAt(const std::vector<ContractProperty>& props, const std::string& path);
};

/// `object` as a drift side whose fields carry the identities' ids (column mapping on,
/// so renames are exact). `after` selects alias resolution (new side).
Result<DriftSide> ContractDriftSide(const ContractObject& object,
                                    ContractIdentities* identities, bool after);

}  // namespace deltaguard

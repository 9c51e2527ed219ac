/// \file deltaguard/contract/contract.h
/// A data contract: the Open Data Contract Standard v3.1 subset deltaguard reads
/// (docs/contracts.md), with our settings from `customProperties` (medallion layer,
/// compatibility mode, aliases, schema evolution mode, quarantine table, cast policy).
/// The model is plain values; `ParseContract` (contract/parse.h) builds it from YAML
/// with diagnostics that name the file, line and key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/drift/compat.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Where a contract sits (docs/contracts.md "Layer presets").
enum class MedallionLayer : uint8_t { kNone, kBronze, kSilver, kGold };
std::string_view MedallionLayerName(MedallionLayer layer);  ///< "" for kNone
Result<MedallionLayer> ParseMedallionLayer(std::string_view name);

/// How a write under the contract casts input values to the declared types: kStrict
/// casts losslessly or refuses the write; kTry casts as TRY_CAST does and counts the
/// NULLs each cast introduced, refusing the write above `max_cast_nulls`.
enum class CastPolicy : uint8_t { kStrict, kTry };

/// A quality rule (ODCS `quality[]`), at object or property level.
struct QualityRule {
  std::string id;
  std::string name;
  std::string description;
  std::string type = "library";  ///< library | sql | custom | text
  /// Library metrics: nullValues, missingValues, invalidValues, duplicateValues,
  /// rowCount.
  std::string metric;
  std::vector<std::string> valid_values;    ///< invalidValues: the accepted values
  std::optional<std::string> pattern;       ///< invalidValues: a regular expression
  std::vector<std::string> missing_values;  ///< missingValues: besides NULL
  std::vector<std::string> properties;      ///< duplicateValues at object level
  /// The comparison: mustBe, mustNotBe, mustBeGreaterThan, mustBeGreaterOrEqualTo,
  /// mustBeLessThan, mustBeLessOrEqualTo, mustBeBetween, mustNotBeBetween
  /// ("" for text rules). Between is inclusive (docs/contracts.md).
  std::string op;
  std::vector<double> operands;    ///< one, or two for the between operators
  std::string unit = "rows";       ///< rows | percent
  std::string severity = "error";  ///< info | warning | error
  std::string dimension;
  std::string query;           ///< sql rules: {object} and {property} placeholders
  std::string engine;          ///< custom rules
  std::string implementation;  ///< custom rules
  std::string object;          ///< the schema object the rule belongs to
  std::string property;        ///< its property's column path; "" at object level
  int line = 0;

  /// Whether `value` passes the comparison.
  bool Passes(double value) const;
  /// "mustBe 0", "mustBeBetween [1, 5]".
  std::string ComparisonText() const;
};

/// A property (column) of a schema object; nested `properties` for objects (structs),
/// one element in `items` for arrays.
struct ContractProperty {
  std::string id;
  std::string name;
  std::string physical_name;
  std::string description;
  std::string business_name;
  std::string classification;
  std::string
      logical_type;  ///< string|date|timestamp|time|number|integer|object|array|boolean
  std::string physical_type;  ///< as written: a Delta/Spark SQL type ("decimal(18,2)")
  DataTypeRef type;           ///< the Delta type it resolves to (null when unresolved)
  bool required = false;
  bool unique = false;
  bool primary_key = false;
  int primary_key_position = -1;
  bool partitioned = false;
  int partition_key_position = -1;
  bool critical = false;
  // logicalTypeOptions (the per-type keys of ODCS).
  std::optional<int64_t> min_length;
  std::optional<int64_t> max_length;
  std::optional<std::string> pattern;
  std::optional<std::string> format;
  std::optional<std::string> minimum;  ///< numbers and dates as written
  std::optional<std::string> maximum;
  std::optional<std::string> exclusive_minimum;
  std::optional<std::string> exclusive_maximum;
  std::vector<std::string> aliases;  ///< customProperties `aliases`: former names
  std::vector<ContractProperty> properties;
  std::vector<ContractProperty> items;
  std::vector<QualityRule> quality;
  int line = 0;
};

/// A schema object (table) of the contract.
struct ContractObject {
  std::string id;
  std::string name;
  std::string physical_name;
  std::string physical_type;  ///< table | view | ...
  std::string description;
  std::vector<ContractProperty> properties;
  std::vector<QualityRule> quality;
  int line = 0;
};

struct Contract {
  std::string file;  ///< where it was read from, for messages
  std::string api_version;
  std::string kind;
  std::string id;
  std::string name;
  std::string version;
  std::string status;
  std::string domain;
  std::string description;
  std::vector<std::string> tags;
  std::vector<ContractObject> schema;
  /// customProperties at the contract level, as written (name, value text).
  std::vector<std::pair<std::string, std::string>> custom_properties;
  MedallionLayer layer = MedallionLayer::kNone;
  std::optional<CompatMode> compatibility;  ///< as written; see EffectiveCompatibility
  std::string schema_evolution_mode;
  std::string quarantine_table;
  CastPolicy cast_policy = CastPolicy::kStrict;
  int64_t max_cast_nulls = 0;
  /// SHA-256 of the file's bytes: what a table records to name the contract it
  /// carries.
  std::string hash;

  /// The object a write or test targets: the only one, or the one named `name`.
  Result<const ContractObject*> Object(std::string_view name = {}) const;
};

/// The mode changes are judged with: the contract's `compatibility`, else its layer's
/// preset (bronze NONE, silver BACKWARD_TRANSITIVE, gold FULL_TRANSITIVE), else
/// BACKWARD (the schema registries' default).
CompatMode EffectiveCompatibility(const Contract& contract);

/// A semantic version "MAJOR.MINOR.PATCH" (a leading 'v' and a pre-release or build
/// suffix are accepted and ignored); kInvalidArgument otherwise.
struct SemVer {
  int64_t major = 0;
  int64_t minor = 0;
  int64_t patch = 0;
};
Result<SemVer> ParseSemVer(std::string_view text);

/// Table properties of a contract a table carries (`contract apply`, docs/contracts.md
/// "Apply"): plain Delta table properties, so every engine keeps them.
inline constexpr std::string_view kContractIdProperty = "deltaguard.contract.id";
inline constexpr std::string_view kContractVersionProperty =
    "deltaguard.contract.version";
inline constexpr std::string_view kContractHashProperty = "deltaguard.contract.hash";
inline constexpr std::string_view kContractYamlProperty = "deltaguard.contract.yaml";
inline constexpr std::string_view kContractConstraintsProperty =
    "deltaguard.contract.constraints";

}  // namespace deltaguard

// A suite from a file (quality/data_tests.h): a tests file, or an ODCS contract whose
// quality rules and implied checks become the same row tests.

#include <string>

#include "deltaguard/contract/checks.h"
#include "deltaguard/contract/parse.h"
#include "deltaguard/quality/data_tests.h"

namespace deltaguard {

Result<DataTestSuite> LoadDataTests(const FileSystem& fs, const std::string& path,
                                    const std::string& contract_object) {
  DELTA_ASSIGN_OR_RETURN(std::string text, fs.ReadFile(path));
  if (LooksLikeContract(text)) {
    DELTA_ASSIGN_OR_RETURN(Contract contract, LoadContractText(text, path));
    DELTA_ASSIGN_OR_RETURN(const ContractObject* object,
                           contract.Object(contract_object));
    return DataTestSuiteFromContract(contract, *object);
  }
  return ParseDataTests(text, path);
}
bool LooksLikeContract(std::string_view text) {
  return text.find("apiVersion") != std::string_view::npos &&
         text.find("DataContract") != std::string_view::npos;
}

DataTestSuite DataTestSuiteFromContract(const Contract& contract,
                                        const ContractObject& object) {
  DataTestSuite suite;
  suite.file = contract.file;
  for (const auto& spec : PlanContractChecks(object, "")) {
    DataTest t;
    t.id = spec.id;
    t.column = spec.property;
    t.rule = spec.rule;
    t.line = spec.rule.line;
    t.severity =
        spec.rule.severity == "error" ? TestSeverity::kFail : TestSeverity::kWarn;
    switch (spec.kind) {
      case ContractCheckSpec::Kind::kRowPredicate:
        t.name = "contract_rule";
        t.predicate = spec.predicate;
        break;
      case ContractCheckSpec::Kind::kDuplicates:
        t.name = "unique";
        t.key_columns = spec.columns;
        break;
      case ContractCheckSpec::Kind::kRowCount:
        t.name = "row_count";
        break;
      case ContractCheckSpec::Kind::kSql:
      case ContractCheckSpec::Kind::kSkipped:
        continue;  // `contract test` runs sql rules against the whole table
    }
    suite.tests.push_back(std::move(t));
  }
  return suite;
}

}  // namespace deltaguard

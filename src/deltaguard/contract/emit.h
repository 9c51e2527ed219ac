/// \file deltaguard/contract/emit.h
/// Writing a contract as ODCS v3.1 YAML (`contract init`): the model of
/// contract/contract.h in the key order of the ODCS documentation, with comments on
/// the parts that are proposals from the data rather than facts of the table. What is
/// written parses back (contract/parse.h) to the same model.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "deltaguard/contract/contract.h"

namespace deltaguard {

/// Comments attached to elements when emitting: keyed by "<property path>" for a
/// property's logicalTypeOptions and by "<property path>#<rule id>" for a rule, each
/// written above the element ("# proposed from the data: 3 distinct values in 10,000
/// rows").
using EmitComments = std::map<std::string, std::string>;

/// The contract as YAML text (one document, ending with a newline).
std::string ContractToYaml(const Contract& contract, const EmitComments& comments = {},
                           std::string_view header = {});

/// A YAML scalar for `text`: plain when that reads back as the same string, else
/// single-quoted (double-quoted with escapes when it holds control characters).
std::string YamlScalar(std::string_view text);

}  // namespace deltaguard

/// \file deltaguard/contract/parse.h
/// Reading a contract file (ODCS v3.1 YAML, docs/contracts.md) into the model of
/// contract/contract.h. Structure problems are diagnostics, not a first-error stop, so
/// `contract lint` reports all of them at once: errors (a value of the wrong kind, an
/// unknown type, a duplicate id) and warnings (a key neither ODCS nor deltaguard
/// knows). Each names the file, the line and column, and the key path
/// (`schema[0].properties[2].physicalType`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/contract/contract.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct ContractDiagnostic {
  enum class Severity : uint8_t { kError, kWarning };
  Severity severity = Severity::kError;
  std::string file;
  int line = 0;
  int column = 0;
  std::string key;  ///< the key path, "" for the document
  std::string message;

  bool is_error() const { return severity == Severity::kError; }
  /// "orders.odcs.yaml:12:7: error: schema[0].properties[1].physicalType: unknown
  /// type 'varchr(2)'".
  std::string ToString() const;
};

/// A parsed contract and what was found on the way.
struct ContractParse {
  Contract contract;
  std::vector<ContractDiagnostic> diagnostics;
  bool HasErrors() const;
};

/// Parse contract YAML. Fails (kParseError / kInvalidArgument naming the file, line and
/// column) only when the text is not one YAML document within the bounds of
/// contract/yaml_reader.h; everything else is a diagnostic.
Result<ContractParse> ParseContract(std::string_view text, std::string_view file);

/// Read and parse the contract at `path` (kNotFound / kIOError naming it).
Result<ContractParse> ReadContract(const FileSystem& fs, const std::string& path);

/// A contract without errors: the parse and the lint (contract/lint.h) pass, else
/// kInvalidArgument listing every error. Warnings are appended to `warnings` when it
/// is not null.
Result<Contract> LoadContract(const FileSystem& fs, const std::string& path,
                              std::vector<ContractDiagnostic>* warnings = nullptr);
/// The same from text already read (Python's Contract.from_yaml, tests).
Result<Contract> LoadContractText(std::string_view text, std::string_view file,
                                  std::vector<ContractDiagnostic>* warnings = nullptr);

/// The hex XXH3-128 digest of `bytes`: how a table names the exact contract text it
/// carries (Contract::hash).
std::string ContractHash(std::string_view bytes);

}  // namespace deltaguard

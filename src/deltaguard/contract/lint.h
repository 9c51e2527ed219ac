/// \file deltaguard/contract/lint.h
/// The checks of a parsed contract that go beyond its structure (docs/contracts.md
/// "Lint"): ids unique, property names unique per struct, logicalType and physicalType
/// agreeing, keys and positions consistent, a semantic version, and every quality
/// rule binding: a known metric at a level it applies to, its comparison and
/// arguments present, its columns existing, its SQL parsing as one query.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/contract/contract.h"
#include "deltaguard/contract/parse.h"
#include "deltaguard/io/fs/file_system.h"

namespace deltaguard {

/// Every problem of `contract` (parsed without errors) as diagnostics; empty when it
/// is sound.
std::vector<ContractDiagnostic> LintContract(const Contract& contract);

/// `contract lint` of one file: every diagnostic of the parse and the lint; `error`
/// set when the file could not be read or is not YAML (then it is the only entry).
struct LintedFile {
  std::string file;
  std::vector<ContractDiagnostic> diagnostics;
  bool valid() const;
  size_t errors() const;
  size_t warnings() const;
};

/// Lint the contract at `path` (read through `fs`).
LintedFile LintContractFile(const FileSystem& fs, const std::string& path);
/// Lint contract text (Python's Contract.lint, tests).
LintedFile LintContractText(std::string_view text, std::string_view file);

/// Renderings of a lint run: text (one line per diagnostic, then a summary), JSON
/// ({"valid","files":[{"file","valid","errors","warnings","diagnostics":[{"severity",
/// "line","column","key","message"}]}]}), JUnit (a test case per file) and GitHub
/// (`::error file=F,line=L,col=C::`).
std::string LintText(const std::vector<LintedFile>& files);
std::string LintJson(const std::vector<LintedFile>& files);
std::string LintJunit(const std::vector<LintedFile>& files);
std::string LintGithub(const std::vector<LintedFile>& files);

/// The ODCS logical type a Delta type belongs to ("integer" for INT, "number" for
/// DECIMAL, "object" for STRUCT, ...).
std::string_view LogicalTypeOf(const DataType& type);

/// Whether `logical` (an ODCS logicalType) admits the Delta type `type` ("number"
/// admits integers too; "time" and "string" admit strings).
bool LogicalTypeAdmits(std::string_view logical, const DataType& type);

}  // namespace deltaguard

// deltaguard_sqllogictest: run golden `.test` files (DuckDB's sqllogictest format).
//
//   deltaguard_sqllogictest [--corpora DIR] FILE.test...
//
// Exit codes: 0 every file passed; 1 a file failed (file:line, SQL, expected vs actual
// on stderr); 77 every file was skipped by `require` (ctest's SKIP_RETURN_CODE).

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "sqllogic/runner.h"

int main(int argc, char** argv) {
  using namespace deltaguard::sqllogic;
  RunnerOptions options;
  if (const char* corpora = std::getenv("DELTAGUARD_CORPORA")) options.corpora = corpora;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--corpora" && i + 1 < argc) {
      options.corpora = argv[++i];
    } else if (arg == "-h" || arg == "--help" || (!arg.empty() && arg[0] == '-')) {
      std::cerr << "usage: deltaguard_sqllogictest [--corpora DIR] FILE.test...\n";
      return arg[0] == '-' && arg != "-h" && arg != "--help" ? 2 : 0;
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) {
    std::cerr << "usage: deltaguard_sqllogictest [--corpora DIR] FILE.test...\n";
    return 2;
  }
  bool failed = false;
  size_t skipped = 0;
  for (const auto& file : files) {
    int rc = RunTestFile(file, options);
    if (rc == kSkipExitCode) ++skipped;
    if (rc == 1) failed = true;
  }
  if (failed) return 1;
  return skipped == files.size() ? kSkipExitCode : 0;
}

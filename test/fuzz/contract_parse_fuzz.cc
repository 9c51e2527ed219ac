// libFuzzer target for contract files (contract/parse.h, lint.h, emit.h, diff.h):
// YAML in, the ODCS model out. Beyond "no crash, no sanitizer report":
//  1. a refused document is kParseError or kInvalidArgument naming the file;
//  2. every diagnostic names the file;
//  3. a contract without errors diffs against itself with no change and no failure;
//  4. emitting it and parsing the text back gives a contract without errors whose
//     emitted text is the same (the emitter is a fixed point on what it writes).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "deltaguard/contract/diff.h"
#include "deltaguard/contract/emit.h"
#include "deltaguard/contract/lint.h"
#include "deltaguard/contract/parse.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "contract_parse_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace deltaguard;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto parse = ParseContract(input, "fuzz.yaml");
  if (!parse) {
    Check(parse.error().code == ErrorCode::kParseError ||
              parse.error().code == ErrorCode::kInvalidArgument,
          "refused YAML has an unexpected error code");
    Check(parse.error().message.find("fuzz.yaml") != std::string::npos,
          "error does not name the file");
    return 0;
  }
  for (const auto& d : parse->diagnostics)
    Check(d.file == "fuzz.yaml", "diagnostic file");
  if (parse->HasErrors()) return 0;
  for (const auto& d : LintContract(parse->contract)) {
    if (d.is_error()) return 0;
  }
  const Contract& c = parse->contract;
  auto self = DiffContracts(c, c);
  if (self) {
    Check(self->changes.empty(), "a contract differs from itself");
    Check(!self->fails, "a contract fails against itself");
  }
  std::string yaml = ContractToYaml(c);
  auto again = ParseContract(yaml, "fuzz.yaml");
  Check(again.has_value(), "emitted YAML does not parse");
  Check(!again->HasErrors(), "emitted YAML has errors");
  Check(ContractToYaml(again->contract) == yaml, "emitting is not a fixed point");
  return 0;
}

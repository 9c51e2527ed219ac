// libFuzzer target for CSV write inputs (exec/input_source.h): arbitrary bytes as a
// CSV file, with and without a type hint, multiLine on and off, header on and off,
// invalid UTF-8 refused or replaced. Invariants: input_fuzz_common.h.

#include "input_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  input_fuzz::Run(data, size, deltaguard::InputFormat::kCsv, ".csv");
  return 0;
}

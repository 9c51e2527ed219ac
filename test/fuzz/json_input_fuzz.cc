// libFuzzer target for NDJSON write inputs (exec/input_source.h): arbitrary bytes as
// a JSON-lines file, with and without a type hint, a 1 KiB or 4 KiB block, invalid UTF-8
// refused or replaced. Invariants: input_fuzz_common.h.

#include "input_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  input_fuzz::Run(data, size, deltaguard::InputFormat::kJson, ".json");
  return 0;
}

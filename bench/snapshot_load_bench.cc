// snapshot_load_bench: loads one Delta table snapshot (open + the list of live files,
// resolved to local paths) and prints {"files": N, "version": V, "seconds": t} on stdout.
// Driven by bench/run_snapshot_bench.py, which runs it in a fresh process per measurement
// and measures peak RSS from outside.
//
//   snapshot_load_bench TABLE_PATH

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "deltaguard/table/table.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: snapshot_load_bench TABLE_PATH\n");
    return 2;
  }
  const std::string table = argv[1];
  const auto start = std::chrono::steady_clock::now();

  auto snapshot = deltaguard::OpenSnapshot(table);
  if (!snapshot.has_value()) {
    std::fprintf(stderr, "snapshot_load_bench: %s: %s\n", table.c_str(),
                 snapshot.error().ToString().c_str());
    return 1;
  }
  // The same work as deltalake's DeltaTable(path).file_uris(): one resolved path per
  // live file.
  const auto& files = (*snapshot)->files();
  std::vector<std::string> paths;
  paths.reserve(files.size());
  int64_t total_bytes = 0;
  for (const auto& add : files) {
    paths.push_back((*snapshot)->ResolveDataPath(add.path));
    total_bytes += add.size;
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"files\": %zu, \"version\": %lld, \"bytes\": %lld, \"seconds\": %.6f}\n",
              paths.size(), static_cast<long long>((*snapshot)->version()),
              static_cast<long long>(total_bytes), seconds);
  return 0;
}

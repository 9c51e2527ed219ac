/// \file python/src/py_table.h
/// A table at one version as the package holds it (Python's deltaguard.Table wraps
/// one): shared by the bindings that act on an open table (reads, drift).
#pragma once

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/snapshot.h"

namespace deltaguard::python {

struct NativeTable {
  FileSystemRef fs;
  SnapshotRef snapshot;
};

}  // namespace deltaguard::python

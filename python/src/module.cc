// deltaguard._native: the C++ library as a Python extension module. The Python package
// (python/deltaguard) builds the user-facing API on these functions; nothing here is
// meant to be called directly.

#include "py_common.h"

NB_MODULE(_native, m) {
  using namespace deltaguard::python;
  m.doc() = "deltaguard's C++ engine (use the deltaguard package, not this module)";
  BindErrors(m);
  BindArrow(m);
  BindSchema(m);
  BindTable(m);
  BindWrite(m);
  BindDml(m);
  BindSql(m);
  BindDrift(m);
  BindContract(m);
  BindProfile(m);
  BindIngest(m);
}

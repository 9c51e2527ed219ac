/// \file python/src/py_interrupt.h
/// Ctrl-C during a long call: the library asks SessionSettings::interrupt_check before
/// each batch it stages and before it commits; this check runs Python's signal
/// handlers and, when one raised (KeyboardInterrupt), keeps the exception and fails the
/// write, so the staged files are removed and nothing is committed. The exception is
/// raised again once the call returns.
#pragma once

#include <Python.h>

#include <memory>

#include "deltaguard/write/write_types.h"
#include "py_common.h"

namespace deltaguard::python {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// Install the check into `settings` (the guard must outlive the call).
  void Install(SessionSettings* settings);

  /// With the GIL held, after the call: raise the kept exception, if any.
  void RaiseIfInterrupted();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace deltaguard::python

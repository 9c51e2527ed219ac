#include "py_interrupt.h"

#include <mutex>

namespace deltaguard::python {

struct InterruptGuard::State {
  std::mutex mu;
  PyObject* type = nullptr;  // owned references of the kept exception
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
};

InterruptGuard::InterruptGuard() : state_(std::make_shared<State>()) {}

InterruptGuard::~InterruptGuard() {
  if (state_->type == nullptr) return;
  nb::gil_scoped_acquire gil;
  Py_XDECREF(state_->type);
  Py_XDECREF(state_->value);
  Py_XDECREF(state_->traceback);
}

void InterruptGuard::Install(SessionSettings* settings) {
  std::weak_ptr<State> weak = state_;
  settings->interrupt_check = [weak]() -> Status {
    auto state = weak.lock();
    if (!state) return OkStatus();
    nb::gil_scoped_acquire gil;
    // Signal handlers run only on the main thread; elsewhere this returns 0.
    if (PyErr_CheckSignals() == 0) return OkStatus();
    std::lock_guard<std::mutex> lock(state->mu);
    if (state->type == nullptr) {
      PyErr_Fetch(&state->type, &state->value, &state->traceback);
    } else {
      PyErr_Clear();
    }
    return MakeError(
        ErrorCode::kIOError,
        "interrupted: nothing was committed and the staged files were removed");
  };
}

void InterruptGuard::RaiseIfInterrupted() {
  if (state_->type == nullptr) return;
  PyErr_Restore(state_->type, state_->value, state_->traceback);
  state_->type = state_->value = state_->traceback = nullptr;
  throw nb::python_error();
}

}  // namespace deltaguard::python

#pragma once

#include <pybind11/pybind11.h>

namespace pfmab::python {

// The GIL for one call into Python from an engine thread: a hook of
// PolicyState, or a replication's object made. A oneTBB thread has no
// Python thread state of its own, and pybind11's gil_scoped_acquire would
// make one and delete it at every call: about 8 us, most of a hook's cost
// (a pfmab.run of 2,000 replications of explore-then-commit in Python took
// 1.05 s that way, 0.08 s this way; in C++, 0.05 s). This makes one on a
// thread's first call and keeps it for the thread's life, so that each
// call only takes and drops the GIL. (A thread that holds the GIL already
// keeps its own.)
class HookGil {
 public:
  HookGil() {
    thread_local const KeptState kept;
    state_ = PyGILState_Ensure();
  }
  ~HookGil() { PyGILState_Release(state_); }
  HookGil(const HookGil&) = delete;
  HookGil& operator=(const HookGil&) = delete;

 private:
  // This thread's state, made with the GIL's count at one and the GIL
  // dropped, so that PyGILState_Release never deletes it; deleted when the
  // thread ends if Python still runs.
  struct KeptState {
    KeptState() {
      if (PyGILState_Check()) return;
      PyGILState_Ensure();
      state = PyEval_SaveThread();
    }
    ~KeptState() {
      if (!state || !Py_IsInitialized() || finalizing()) return;
      PyEval_RestoreThread(state);
      PyThreadState_Clear(state);
      PyThreadState_DeleteCurrent();
    }
    PyThreadState* state = nullptr;
  };
  static bool finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
  }

  PyGILState_STATE state_;
};

}  // namespace pfmab::python

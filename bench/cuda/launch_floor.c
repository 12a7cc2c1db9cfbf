// The floor of a launch from Python: one CPython call that does nothing but
// cuLaunchKernel of an empty kernel. bench/gpu.py times it beside simt's launch
// and raw_launch.cpp's C++ loop, in the same process as simt, so that the three
// rows split a Python launch's cost into what Python's call costs (this module
// less the C++ loop) and what simt adds (simt less this module).
// Build (bench/gpu.py's docstring): nvcc -O2 -shared -Xcompiler -fPIC
// -I<Python include> launch_floor.c -o launch_floor<extension suffix> -lcuda
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

static CUfunction g_empty0, g_empty4;
static CUdeviceptr g_buffer;
static float g_a = 1;
static long long g_n = 16;
static void* g_args4[] = {&g_buffer, &g_buffer, &g_a, &g_n};

static PyObject* fail(const char* call, CUresult status) {
  const char* name = "?";
  cuGetErrorName(status, &name);
  return PyErr_Format(PyExc_RuntimeError, "%s failed: %s", call, name);
}

// load(cubin_path): the kernels empty0 and empty4 of the cubin, in device 0's
// primary context (the one simt and CuPy use), made current on this thread.
static PyObject* load(PyObject* self, PyObject* arg) {
  (void)self;
  const char* path = PyUnicode_AsUTF8(arg);
  if (!path) return NULL;
  CUdevice device;
  CUcontext context;
  CUmodule module;
  CUresult status;
  if ((status = cuInit(0)) != CUDA_SUCCESS) return fail("cuInit", status);
  if ((status = cuDeviceGet(&device, 0)) != CUDA_SUCCESS) return fail("cuDeviceGet", status);
  if ((status = cuDevicePrimaryCtxRetain(&context, device)) != CUDA_SUCCESS)
    return fail("cuDevicePrimaryCtxRetain", status);
  if ((status = cuCtxSetCurrent(context)) != CUDA_SUCCESS) return fail("cuCtxSetCurrent", status);
  if ((status = cuModuleLoad(&module, path)) != CUDA_SUCCESS) return fail("cuModuleLoad", status);
  if ((status = cuModuleGetFunction(&g_empty0, module, "empty0")) != CUDA_SUCCESS ||
      (status = cuModuleGetFunction(&g_empty4, module, "empty4")) != CUDA_SUCCESS)
    return fail("cuModuleGetFunction", status);
  if ((status = cuMemAlloc(&g_buffer, 1024)) != CUDA_SUCCESS) return fail("cuMemAlloc", status);
  Py_RETURN_NONE;
}

static PyObject* launch(CUfunction function, void** args, int release_gil) {
  CUresult status;
  if (release_gil) {
    PyThreadState* thread = PyEval_SaveThread();
    status = cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, args, NULL);
    PyEval_RestoreThread(thread);
  } else {
    status = cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, args, NULL);
  }
  if (status != CUDA_SUCCESS) return fail("cuLaunchKernel", status);
  Py_RETURN_NONE;
}

// launch0_context(): what simt's launch does around the driver's call besides
// its own bookkeeping: the thread's context read (cuCtxGetCurrent), then the
// launch, the GIL released.
static PyObject* launch0_context(PyObject* self, PyObject* unused) {
  (void)self, (void)unused;
  CUresult status;
  CUcontext current = NULL;
  PyThreadState* thread = PyEval_SaveThread();
  cuCtxGetCurrent(&current);
  status = cuLaunchKernel(g_empty0, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL);
  PyEval_RestoreThread(thread);
  if (status != CUDA_SUCCESS) return fail("cuLaunchKernel", status);
  Py_RETURN_NONE;
}

static PyObject* launch0(PyObject* self, PyObject* unused) {
  (void)self, (void)unused;
  return launch(g_empty0, NULL, 0);
}

static PyObject* launch0_nogil(PyObject* self, PyObject* unused) {
  (void)self, (void)unused;
  return launch(g_empty0, NULL, 1);
}

// launch4(a, b, c, d): four arguments passed and ignored, as a call with four
// would pass them; the kernel gets the module's own buffer and numbers.
static PyObject* launch4(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)self, (void)args;
  if (nargs != 4) return PyErr_Format(PyExc_TypeError, "launch4 takes 4 arguments");
  return launch(g_empty4, g_args4, 1);
}

static PyMethodDef methods[] = {
    {"load", load, METH_O, "load(cubin): empty0 and empty4 on device 0"},
    {"launch0", launch0, METH_NOARGS, "cuLaunchKernel of empty0, the GIL held"},
    {"launch0_nogil", launch0_nogil, METH_NOARGS, "cuLaunchKernel of empty0, the GIL released"},
    {"launch0_context", launch0_context, METH_NOARGS,
     "cuCtxGetCurrent, then cuLaunchKernel of empty0, the GIL released"},
    {"launch4", (PyCFunction)(void (*)(void))launch4, METH_FASTCALL,
     "cuLaunchKernel of empty4 (4 arguments taken), the GIL released"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "launch_floor", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_launch_floor(void) { return PyModule_Create(&module_def); }

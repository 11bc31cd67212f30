// The Python module flash_ext._C: build constants, and the raw (METH_FASTCALL) functions that
// flash_ext/interface.py and dispatch.py call. A raw call costs about 0.2 us against pybind11's
// 1.8 us and torch.ops' 3.4 us for the entry points' arguments (18 when measured, 2-core EPYC):
// the eager hot path is one of these calls. Argument conversion errors name the argument like the checks do.
#include <Python.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>

#include <cmath>
#include <string>
#include <vector>

#include "../cpu/amx.h"
#include "dispatch.h"
#include "entry.h"
#include "checks.h"

namespace flash_ext {
namespace {

using at::Tensor;

std::string repr(PyObject* o) {
  PyObject* r = PyObject_Repr(o);
  if (r == nullptr) {
    PyErr_Clear();
    return "?";
  }
  std::string s = PyUnicode_AsUTF8(r);
  Py_DECREF(r);
  return s;
}

const char* type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

Tensor tensor(PyObject* o, const char* name) {
  TORCH_CHECK_TYPE(THPVariable_Check(o), name, " must be a torch.Tensor, got ", type_name(o));
  return THPVariable_Unpack(o);
}

std::optional<Tensor> optional_tensor(PyObject* o, const char* name) {
  if (o == Py_None) return std::nullopt;
  TORCH_CHECK_TYPE(THPVariable_Check(o), name, " must be a torch.Tensor or None, got ",
                   type_name(o));
  return THPVariable_Unpack(o);
}

// A Python number (int, float, numpy scalar, 0-d tensor); ValueError "<name> must be
// <accepted>, got <repr>" otherwise.
double number(PyObject* o, const char* name, const char* accepted) {
  if (PyFloat_CheckExact(o)) return PyFloat_AS_DOUBLE(o);
  const double value = PyUnicode_Check(o) || PyBytes_Check(o) ? -1.0 : PyFloat_AsDouble(o);
  if (PyUnicode_Check(o) || PyBytes_Check(o) || (value == -1.0 && PyErr_Occurred())) {
    PyErr_Clear();
    TORCH_CHECK_VALUE(false, name, " must be ", accepted, ", got ", repr(o));
  }
  return value;
}

bool is_int(PyObject* o) { return !PyBool_Check(o) && PyIndex_Check(o); }

int64_t integer(PyObject* o, const char* name, const char* accepted) {
  if (is_int(o)) {
    const int64_t value = PyLong_AsLongLong(o);
    if (!(value == -1 && PyErr_Occurred())) return value;
    PyErr_Clear();
  }
  TORCH_CHECK_VALUE(false, name, " must be ", accepted, ", got ", repr(o));
}

// window_size: a pair (left, right) of ints, a tuple, list or integer tensor of two.
std::pair<int64_t, int64_t> window_size(PyObject* o) {
  if (THPVariable_Check(o)) {
    const Tensor& t = THPVariable_Unpack(o);
    TORCH_CHECK_VALUE(t.dim() == 1 && t.numel() == 2 && at::isIntegralType(t.scalar_type(), false),
                      "window_size must be a pair (left, right) of ints, got a tensor of dtype ",
                      dtype_name(t.scalar_type()), " and shape ", shape_str(t.sym_sizes()));
    const Tensor pair = t.to(at::kCPU, at::kLong);
    return {pair.data_ptr<int64_t>()[0], pair.data_ptr<int64_t>()[1]};
  }
  PyObject* items[2] = {nullptr, nullptr};
  if ((PyTuple_CheckExact(o) || PyList_CheckExact(o)) && PySequence_Fast_GET_SIZE(o) == 2) {
    items[0] = PySequence_Fast_GET_ITEM(o, 0);
    items[1] = PySequence_Fast_GET_ITEM(o, 1);
    Py_INCREF(items[0]);
    Py_INCREF(items[1]);
  } else if (PySequence_Check(o) && PySequence_Size(o) == 2) {
    items[0] = PySequence_GetItem(o, 0);
    items[1] = PySequence_GetItem(o, 1);
  }
  PyErr_Clear();
  auto release = [&] {
    Py_XDECREF(items[0]);
    Py_XDECREF(items[1]);
  };
  if (items[0] == nullptr || items[1] == nullptr) {
    release();
    TORCH_CHECK_VALUE(false, "window_size must be a pair (left, right), got ", repr(o));
  }
  int64_t sides[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t value = is_int(items[i]) ? PyLong_AsLongLong(items[i]) : -2;
    if (!is_int(items[i]) || (value == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      const std::string given = repr(items[i]), pair = repr(o);
      release();
      TORCH_CHECK_VALUE(false, "window_size ", i == 0 ? "left" : "right", " must be an int >= "
                        "0, or -1 for unbounded, got ", given, " in window_size=", pair);
    }
    sides[i] = value;
  }
  release();
  return {sides[0], sides[1]};
}

std::optional<std::string> optional_string(PyObject* o, const char* name) {
  if (o == Py_None) return std::nullopt;
  TORCH_CHECK_TYPE(PyUnicode_Check(o), name, " must be a str or None, got ", type_name(o));
  return std::string(PyUnicode_AsUTF8(o));
}

// The entry points' 19 arguments, in interface.py's order; the last, the entry's kind: 0
// attention, 1 flash_attn_func, 2 attention_varlen, 3 flash_attn_varlen_func.
constexpr Py_ssize_t kEntryArgs = 19;

EntryArgs entry_args(PyObject* const* a, Py_ssize_t n, std::optional<std::string>& backend) {
  TORCH_CHECK_TYPE(n >= kEntryArgs, "flash_ext._C entry points take ", kEntryArgs,
                   " arguments, got ", n);
  const int64_t kind = PyLong_AsLongLong(a[18]);
  const bool flash_api = kind == 1 || kind == 3;
  const bool varlen = kind >= 2;
  const char* scale_name = flash_api ? "softmax_scale" : "scale";
  EntryArgs e;
  e.flash_api = flash_api;
  e.query = tensor(a[0], flash_api ? "q" : "query");
  e.key = tensor(a[1], flash_api ? "k" : "key");
  e.value = tensor(a[2], flash_api ? "v" : "value");
  e.attn_mask = optional_tensor(a[3], "attn_mask");
  if (varlen) {
    e.cu_seqlens_q = tensor(a[4], "cu_seqlens_q");
    e.cu_seqlens_k = tensor(a[5], "cu_seqlens_k");
    e.max_seqlen_q = integer(a[6], "max_seqlen_q", "an int >= 0");
    e.max_seqlen_k = integer(a[7], "max_seqlen_k", "an int >= 0");
  }
  e.dropout_p = number(a[8], "dropout_p", "a number in [0, 1)");
  e.is_causal = PyObject_IsTrue(a[9]) == 1;
  if (a[10] != Py_None) e.scale = number(a[10], scale_name, "None or a finite number");
  e.enable_gqa = PyObject_IsTrue(a[11]) == 1;
  std::tie(e.window_left, e.window_right) = window_size(a[12]);
  e.alibi_slopes = optional_tensor(a[13], "alibi_slopes");
  e.sinks = optional_tensor(a[14], flash_api ? "learnable_sink" : "sinks");
  e.softcap = number(a[15], "softcap", "a finite number >= 0 (0 disables it)");
  e.deterministic = PyObject_IsTrue(a[16]) == 1;
  backend = optional_string(a[17], "backend");
  return e;
}

PyObject* wrap_pair(const std::tuple<Tensor, Tensor>& pair) {
  PyObject* result = PyTuple_New(2);
  if (result == nullptr) return nullptr;
  PyTuple_SET_ITEM(result, 0, THPVariable_Wrap(std::get<0>(pair)));
  PyTuple_SET_ITEM(result, 1, THPVariable_Wrap(std::get<1>(pair)));
  return result;
}

PyObject* string_list(const std::vector<std::string>& items) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(items.size()));
  for (size_t i = 0; i < items.size(); ++i) {
    PyList_SET_ITEM(list, i, PyUnicode_FromString(items[i].c_str()));
  }
  return list;
}

// Releases the GIL while a kernel backend runs, as torch's own bindings do.
struct ReleaseGil {
  PyThreadState* state = PyEval_SaveThread();
  ~ReleaseGil() { PyEval_RestoreThread(state); }
};

// attention(19 entry arguments) -> (out, lse): validate, select, run a kernel backend.
PyObject* py_attention(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  TORCH_CHECK_TYPE(nargs == kEntryArgs, "attention takes ", kEntryArgs, " arguments");
  std::optional<std::string> backend;
  const EntryArgs e = entry_args(args, nargs, backend);
  std::tuple<Tensor, Tensor> result;
  {
    ReleaseGil no_gil;
    result = attention(e, backend);
  }
  return wrap_pair(result);
  END_HANDLE_TH_ERRORS
}

// prepare(19 entry arguments) -> (q, k, v, window_left, window_right, scale) in the ops' layout,
// for a Python backend requested by name: validated, and refused with its reasons when it
// cannot run the call.
PyObject* py_prepare(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  TORCH_CHECK_TYPE(nargs == kEntryArgs, "prepare takes ", kEntryArgs, " arguments");
  std::optional<std::string> backend;
  const EntryArgs e = entry_args(args, nargs, backend);
  const Prepared p = heads_second(prepare(e));
  select_backend(p.info, backend);
  if (e.varlen()) {
    check_cu_seqlens_values(e.cu_seqlens_q->cpu(), e.cu_seqlens_k->cpu(), p.q.size(0),
                            p.k.size(0), e.max_seqlen_q, e.max_seqlen_k);
  }
  const double scale = scale_value(e, p);
  return Py_BuildValue("(NNNLLd)", THPVariable_Wrap(p.q), THPVariable_Wrap(p.k),
                       THPVariable_Wrap(p.v), static_cast<long long>(p.window_left),
                       static_cast<long long>(p.window_right), scale);
  END_HANDLE_TH_ERRORS
}

// explain(19 entry arguments, as_varlen) -> (selected or None, [[reasons] per backend]);
// as_varlen describes a dense call as attention_varlen with the same features.
PyObject* py_explain(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  TORCH_CHECK_TYPE(nargs == kEntryArgs + 1, "explain takes ", kEntryArgs + 1, " arguments");
  std::optional<std::string> backend;
  const EntryArgs e = entry_args(args, nargs, backend);
  Prepared p = prepare(e);
  p.info.features.varlen |= PyObject_IsTrue(args[kEntryArgs]) == 1;
  const std::optional<std::string> name = find_backend(p.info, backend);
  const std::vector<std::vector<std::string>> reasons = all_reasons(p.info);
  PyObject* selected = name ? PyUnicode_FromString(name->c_str()) : Py_NewRef(Py_None);
  PyObject* lists = PyList_New(static_cast<Py_ssize_t>(reasons.size()));
  for (size_t i = 0; i < reasons.size(); ++i) PyList_SET_ITEM(lists, i, string_list(reasons[i]));
  return Py_BuildValue("(NN)", selected, lists);
  END_HANDLE_TH_ERRORS
}

// Attribute `name` of o, a new reference (raises AttributeError as a python_error).
PyObject* attr(PyObject* o, const char* name) {
  PyObject* value = PyObject_GetAttrString(o, name);
  if (value == nullptr) throw python_error();
  return value;
}

bool attr_bool(PyObject* o, const char* name) {
  PyObject* v = attr(o, name);
  const bool b = PyObject_IsTrue(v) == 1;
  Py_DECREF(v);
  return b;
}

// Calls f on each item of an iterable.
template <typename F>
void for_each_of(PyObject* iterable, F&& f) {
  PyObject* it = PyObject_GetIter(iterable);
  if (it == nullptr) throw python_error();
  while (PyObject* item = PyIter_Next(it)) {
    try {
      f(item);
    } catch (...) {
      Py_DECREF(item);
      Py_DECREF(it);
      throw;
    }
    Py_DECREF(item);
  }
  Py_DECREF(it);
  if (PyErr_Occurred()) throw python_error();
}

// Calls f on each item of the iterable attribute `name` (nothing for None); false for None.
template <typename F>
bool for_each_item(PyObject* o, const char* name, F&& f) {
  PyObject* v = attr(o, name);
  if (v == Py_None) {
    Py_DECREF(v);
    return false;
  }
  try {
    for_each_of(v, f);
  } catch (...) {
    Py_DECREF(v);
    throw;
  }
  Py_DECREF(v);
  return true;
}

at::ScalarType to_dtype(PyObject* o) {
  TORCH_CHECK_TYPE(THPDtype_Check(o), "expected a torch.dtype, got ", type_name(o));
  return reinterpret_cast<THPDtype*>(o)->scalar_type;
}

std::string to_string(PyObject* o) {
  TORCH_CHECK_TYPE(PyUnicode_Check(o), "expected a str, got ", type_name(o));
  return PyUnicode_AsUTF8(o);
}

int64_t to_int(PyObject* o) { return integer(o, "value", "an int"); }

// Attribute `name` of o through convert; std::nullopt where it is None.
template <typename F>
auto optional_attr(PyObject* o, const char* name, F&& convert)
    -> std::optional<decltype(convert(o))> {
  PyObject* v = attr(o, name);
  std::optional<decltype(convert(o))> result;
  try {
    if (v != Py_None) result = convert(v);
  } catch (...) {
    Py_DECREF(v);
    throw;
  }
  Py_DECREF(v);
  return result;
}

template <typename F>
auto attr_as(PyObject* o, const char* name, F&& convert) {
  auto value = optional_attr(o, name, convert);
  TORCH_CHECK_TYPE(value.has_value(), name, " must not be None");
  return *value;
}

// An iterable attribute as a vector (std::nullopt for None).
template <typename F>
auto list_attr(PyObject* o, const char* name, F&& convert)
    -> std::optional<std::vector<decltype(convert(o))>> {
  std::vector<decltype(convert(o))> items;
  if (!for_each_item(o, name, [&](PyObject* x) { items.push_back(convert(x)); })) {
    return std::nullopt;
  }
  return items;
}

// A (major, minor) attribute (std::nullopt for None).
std::optional<std::pair<int, int>> capability_attr(PyObject* o, const char* name) {
  const auto cc = list_attr(o, name, to_int);
  if (!cc) return std::nullopt;
  TORCH_CHECK_VALUE(cc->size() == 2, name, " must be (major, minor)");
  return std::pair<int, int>(static_cast<int>((*cc)[0]), static_cast<int>((*cc)[1]));
}

c10::DeviceType to_device_type(PyObject* o) { return c10::Device(to_string(o)).type(); }

// The Features fields of an AttentionCall or a Backend.
Features features(PyObject* o) {
  return {attr_bool(o, "dropout"), attr_bool(o, "window"), attr_bool(o, "alibi"),
          attr_bool(o, "softcap"), attr_bool(o, "varlen"), attr_bool(o, "value_head_dim")};
}

// dispatch.py's Backend as BackendCaps.
BackendCaps backend_caps(PyObject* o) {
  BackendCaps b;
  b.name = attr_as(o, "name", to_string);
  b.devices = *list_attr(o, "devices", to_device_type);
  b.dtypes = *list_attr(o, "dtypes", to_dtype);
  b.max_head_dim = optional_attr(o, "max_head_dim", to_int);
  b.min_compute_capability = capability_attr(o, "min_compute_capability");
  const auto masks = list_attr(o, "masks", to_string);
  for (const std::string& kind : *masks) {
    b.mask_bool |= kind == "bool";
    b.mask_additive |= kind == "additive";
  }
  b.mask_grad = attr_bool(o, "mask_grad");
  b.features = features(o);
  b.backward = attr_bool(o, "backward");
  b.automatic = attr_bool(o, "automatic");
  b.unavailable = optional_attr(o, "unavailable", to_string);
  b.kernel_head_dims = *list_attr(o, "kernel_head_dims", to_int);
  b.value_head_dim_pairs = *list_attr(o, "value_head_dim_pairs", [](PyObject* x) {
    std::vector<int64_t> dims;
    for_each_of(x, [&](PyObject* d) { dims.push_back(to_int(d)); });
    TORCH_CHECK_VALUE(dims.size() == 2,
                      "value_head_dim_pairs must hold (q/k head dim, v head dim) pairs");
    return std::pair<int64_t, int64_t>(dims[0], dims[1]);
  });
  b.built_head_dims = list_attr(o, "built_head_dims", to_int);
  b.built_dtypes = list_attr(o, "built_dtypes", to_dtype);
  return b;
}

// dispatch.py's AttentionCall as CallInfo.
CallInfo call_info(PyObject* o) {
  CallInfo c;
  c.device = attr_as(o, "device_type", to_device_type);
  c.dtype = attr_as(o, "dtype", to_dtype);
  c.head_dim = attr_as(o, "head_dim", to_int);
  if (const auto dims = list_attr(o, "head_dims", to_int)) {
    TORCH_CHECK_VALUE(dims->size() == 2, "head_dims must be (q's head dim, v's head dim)");
    c.head_dim_qk = (*dims)[0];
    c.head_dim_v = (*dims)[1];
  }
  if (const auto cc = capability_attr(o, "compute_capability")) {
    std::tie(c.cc_major, c.cc_minor) = *cc;
  }
  const auto mask = optional_attr(o, "mask", to_string);
  if (mask) c.mask = *mask == "bool" ? MaskKind::kBool : MaskKind::kAdditive;
  c.mask_requires_grad = attr_bool(o, "mask_requires_grad");
  c.features = features(o);
  c.needs_grad = attr_bool(o, "needs_grad");
  return c;
}

// set_backends(iterable of dispatch.Backend): the table selection uses, in priority order.
PyObject* py_set_backends(PyObject*, PyObject* table) {
  HANDLE_TH_ERRORS
  std::vector<BackendCaps> caps;
  for_each_of(table, [&](PyObject* item) { caps.push_back(backend_caps(item)); });
  set_backend_table(std::move(caps));
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

// not_supported_reasons(backend, call) -> [str]: why dispatch.Backend cannot run AttentionCall.
PyObject* py_not_supported_reasons(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  TORCH_CHECK_TYPE(nargs == 2, "not_supported_reasons(backend, call)");
  std::vector<std::string> reasons;
  supports(backend_caps(args[0]), call_info(args[1]), &reasons);
  return string_list(reasons);
  END_HANDLE_TH_ERRORS
}

// select_backend(call, backend or None, raise) -> str or None: the backend that runs a
// dispatch.AttentionCall; with `raise`, the error with every reason instead of None.
PyObject* py_select_backend(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  TORCH_CHECK_TYPE(nargs == 3, "select_backend(call, backend, raise)");
  const CallInfo call = call_info(args[0]);
  const std::optional<std::string> backend = optional_string(args[1], "backend");
  const std::optional<std::string> name =
      PyObject_IsTrue(args[2]) == 1 ? select_backend(call, backend) : find_backend(call, backend);
  if (!name) Py_RETURN_NONE;
  return PyUnicode_FromString(name->c_str());
  END_HANDLE_TH_ERRORS
}

// explanation_text(selected or None, [names], [[reasons]]) -> str.
PyObject* py_explanation_text(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  TORCH_CHECK_TYPE(nargs == 3, "explanation_text(selected, names, reasons)");
  const std::string selected = args[0] == Py_None ? "" : to_string(args[0]);
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> reasons;
  PyObject* it = PyObject_GetIter(args[1]);
  if (it == nullptr) return nullptr;
  while (PyObject* name = PyIter_Next(it)) {
    names.push_back(to_string(name));
    Py_DECREF(name);
  }
  Py_DECREF(it);
  it = PyObject_GetIter(args[2]);
  if (it == nullptr) return nullptr;
  while (PyObject* list = PyIter_Next(it)) {
    auto& why = reasons.emplace_back();
    PyObject* inner = PyObject_GetIter(list);
    Py_DECREF(list);
    if (inner == nullptr) break;
    while (PyObject* r = PyIter_Next(inner)) {
      why.push_back(to_string(r));
      Py_DECREF(r);
    }
    Py_DECREF(inner);
  }
  Py_DECREF(it);
  if (PyErr_Occurred()) return nullptr;
  TORCH_CHECK_VALUE(names.size() == reasons.size(), "one list of reasons per backend name");
  return PyUnicode_FromString(explanation_text(selected, names, reasons).c_str());
  END_HANDLE_TH_ERRORS
}

PyMethodDef methods[] = {
    {"attention", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_attention)),
     METH_FASTCALL, "Validate, select a kernel backend and run (interface.py's hot path)."},
    {"prepare", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_prepare)),
     METH_FASTCALL, "Validate a call for a Python backend named in it."},
    {"explain", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_explain)),
     METH_FASTCALL, "Validate a call; the selected backend and every backend's reasons."},
    {"set_backends", py_set_backends, METH_O, "Set the backend table selection uses."},
    {"not_supported_reasons",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_not_supported_reasons)),
     METH_FASTCALL, "Why a dispatch.Backend cannot run a dispatch.AttentionCall."},
    {"select_backend",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_select_backend)),
     METH_FASTCALL, "The backend that runs a dispatch.AttentionCall."},
    {"explanation_text",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_explanation_text)),
     METH_FASTCALL, "explain()'s text."},
    {"cpu_amx", [](PyObject*, PyObject*) { return PyBool_FromLong(cpu::amx::available()); },
     METH_NOARGS, "Whether bfloat16 CPU calls run AMX tile products now (cpu/amx.h)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace
}  // namespace flash_ext

// `import flash_ext._C` loads this library, which also registers the ops (schemas.cpp and the
// per-key implementations). The constants tell Python what was compiled in.
PyMODINIT_FUNC PyInit__C() {
  static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", "flash_ext kernels", -1,
                               flash_ext::methods};
  PyObject* m = PyModule_Create(&module);
  if (m == nullptr) return nullptr;
#define FLASH_EXT_STRINGIFY(x) #x
#define FLASH_EXT_TO_STRING(x) FLASH_EXT_STRINGIFY(x)
#ifdef FLASH_EXT_CPU_ISA  // avx512 or avx2 (setup.py)
  PyModule_AddStringConstant(m, "cpu_isa", FLASH_EXT_TO_STRING(FLASH_EXT_CPU_ISA));
#else
  PyModule_AddStringConstant(m, "cpu_isa", "generic");
#endif
#ifdef FLASH_EXT_CUDA_BACKENDS  // colon-separated names, e.g. flash:mem_eff
  PyModule_AddStringConstant(m, "cuda_backends", FLASH_EXT_TO_STRING(FLASH_EXT_CUDA_BACKENDS));
#else
  PyModule_AddStringConstant(m, "cuda_backends", "");
#endif
#ifdef FLASH_EXT_FLASH_HDIMS  // the flash kernels built (setup.py): e.g. 64:128 and fp16:bf16
  PyModule_AddStringConstant(m, "flash_hdims", FLASH_EXT_TO_STRING(FLASH_EXT_FLASH_HDIMS));
  PyModule_AddStringConstant(m, "flash_dtypes", FLASH_EXT_TO_STRING(FLASH_EXT_FLASH_DTYPES));
#else
  PyModule_AddStringConstant(m, "flash_hdims", "");
  PyModule_AddStringConstant(m, "flash_dtypes", "");
#endif
  return m;
}

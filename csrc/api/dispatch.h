// Backend selection: the capability rules, evaluated on the hot path without building strings,
// and the same rules with their reasons for explain() and for the error when nothing fits. The
// table itself is data in flash_ext/dispatch.py, handed over at import (python.cpp).
#pragma once

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flash_ext {

enum class MaskKind : uint8_t { kNone, kBool, kAdditive };

// Features that a call uses and a backend supports or not (the fields of these names of
// dispatch.py's AttentionCall and Backend).
struct Features {
  bool dropout = false;
  bool window = false;
  bool alibi = false;
  bool softcap = false;
  bool varlen = false;
  bool value_head_dim = false;  // v's head dim differs from q's and k's
};

// What selection needs to know about one call (dispatch.py's AttentionCall).
struct CallInfo {
  c10::DeviceType device = c10::DeviceType::CPU;
  at::ScalarType dtype = at::kFloat;
  int64_t head_dim = 0;  // the larger of q's and v's
  int64_t head_dim_qk = 0, head_dim_v = 0;  // q's and v's, where features.value_head_dim
  int cc_major = -1;  // CUDA compute capability; -1 elsewhere
  int cc_minor = -1;
  MaskKind mask = MaskKind::kNone;
  bool mask_requires_grad = false;
  Features features;
  bool needs_grad = false;  // q, k or v requires grad, with grad mode on
};

// One backend's capabilities (dispatch.py's Backend).
struct BackendCaps {
  std::string name;
  std::vector<c10::DeviceType> devices;
  std::vector<at::ScalarType> dtypes;
  std::optional<int64_t> max_head_dim;
  std::optional<std::pair<int, int>> min_compute_capability;
  bool mask_bool = false, mask_additive = false, mask_grad = false;
  Features features;
  bool backward = true;
  bool automatic = true;
  std::optional<std::string> unavailable;
  std::vector<int64_t> kernel_head_dims;
  // Without features.value_head_dim: the (q/k, v) kernel head dims that have kernels of their
  // own (forward and backward), run on compute capability >= 9.0 without dropout.
  std::vector<std::pair<int64_t, int64_t>> value_head_dim_pairs;
  std::optional<std::vector<int64_t>> built_head_dims;
  std::optional<std::vector<at::ScalarType>> built_dtypes;
};

// True when `backend` can run `call`. With `reasons`, appends why not (all of them) instead of
// returning at the first.
bool supports(const BackendCaps& backend, const CallInfo& call,
              std::vector<std::string>* reasons = nullptr);

// The table in priority order, as dispatch.py last set it.
using BackendTable = std::shared_ptr<const std::vector<BackendCaps>>;
BackendTable backend_table();
void set_backend_table(std::vector<BackendCaps> table);

// The name of the backend that runs `call`: the one named (None: the first automatic one that
// supports it), or none. Raises ValueError for an unknown name.
std::optional<std::string> find_backend(const CallInfo& call,
                                        std::optional<std::string_view> requested);

// The name of the backend that runs `call`: the one named (None: the first automatic one that
// supports it). Raises ValueError for an unknown name and NotImplementedError, with every
// reason, when it cannot run.
std::string select_backend(const CallInfo& call, std::optional<std::string_view> requested);

// Each backend's reasons, in table order.
std::vector<std::vector<std::string>> all_reasons(const CallInfo& call);

// explain()'s text: the selected backend ("none" when empty), then each other one's reasons.
std::string explanation_text(const std::string& selected, const std::vector<std::string>& names,
                             const std::vector<std::vector<std::string>>& reasons);

// The CUDA compute capability of a device, from the CUDA part of the build (none without it).
using CapabilityQuery = std::pair<int, int> (*)(int device_index);
void set_capability_query(CapabilityQuery query);
std::optional<std::pair<int, int>> compute_capability(int device_index);

}  // namespace flash_ext

#include "dispatch.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>

namespace flash_ext {
namespace {

std::string device_name(c10::DeviceType device) {
  return c10::DeviceTypeName(device, /*lower_case=*/true);
}

// "bfloat16, float16" as dispatch.py's _names: sorted, without "torch.".
std::string dtype_names(std::vector<at::ScalarType> dtypes) {
  std::vector<std::string> names;
  for (at::ScalarType t : dtypes) {
    names.push_back(c10::str(c10::toString(t)));
  }
  for (auto& n : names) {
    // c10 calls them Half, BFloat16, Float, Double: use torch's Python names.
    if (n == "Half") n = "float16";
    else if (n == "BFloat16") n = "bfloat16";
    else if (n == "Float") n = "float32";
    else if (n == "Double") n = "float64";
  }
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : ", ") + n;
  return joined;
}

// setup.py's FLASH_EXT_DTYPES names.
std::string build_dtype_name(at::ScalarType t) {
  return t == at::kHalf ? "fp16" : t == at::kBFloat16 ? "bf16" : dtype_names({t});
}

template <typename T>
bool contains(const std::vector<T>& items, const T& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

// The smallest of the backend's kernel head dims that holds d (d itself without a list).
int64_t kernel_dim(const BackendCaps& b, int64_t d) {
  const auto it = std::find_if(b.kernel_head_dims.begin(), b.kernel_head_dims.end(),
                               [&](int64_t k) { return k >= d; });
  return it == b.kernel_head_dims.end() ? d : *it;
}

// Whether a backend whose kernels take one head dim runs this call's (q/k, v) pair.
bool runs_value_pair(const BackendCaps& b, const CallInfo& c) {
  const std::pair<int64_t, int64_t> pair{kernel_dim(b, c.head_dim_qk),
                                         kernel_dim(b, c.head_dim_v)};
  return contains(b.value_head_dim_pairs, pair) && c.cc_major >= 9 && !c.features.dropout;
}

BackendTable table_ptr = std::make_shared<const std::vector<BackendCaps>>();

std::atomic<CapabilityQuery> capability_query{nullptr};

}  // namespace

bool supports(const BackendCaps& b, const CallInfo& c, std::vector<std::string>* reasons) {
  bool ok = true;
  // Records a reason; without `reasons` the first one settles it.
  auto fail = [&](auto&&... parts) {
    ok = false;
    if (reasons != nullptr) reasons->push_back(c10::str(parts...));
    return reasons == nullptr;
  };
  if (b.unavailable && fail(*b.unavailable)) return false;
  if (!contains(b.devices, c.device)) {
    std::vector<std::string> names;
    for (auto d : b.devices) names.push_back(device_name(d));
    std::sort(names.begin(), names.end());
    std::string runs_on;
    for (const auto& n : names) runs_on += (runs_on.empty() ? "" : ", ") + n;
    if (fail("device '", device_name(c.device), "' (runs on ", runs_on, ")")) return false;
  }
  if (!contains(b.dtypes, c.dtype) &&
      fail("dtype ", dtype_names({c.dtype}), " (supports ", dtype_names(b.dtypes), ")")) {
    return false;
  }
  if (b.max_head_dim && c.head_dim > *b.max_head_dim &&
      fail("head_dim ", c.head_dim, " (supports <= ", *b.max_head_dim, ")")) {
    return false;
  }
  if (b.min_compute_capability && c.cc_major >= 0 &&
      std::pair{c.cc_major, c.cc_minor} < *b.min_compute_capability &&
      fail("GPU compute capability ", c.cc_major, ".", c.cc_minor, " (needs >= ",
           b.min_compute_capability->first, ".", b.min_compute_capability->second, ")")) {
    return false;
  }
  if (c.mask == MaskKind::kBool && !b.mask_bool && fail("bool attn_mask (not supported)")) {
    return false;
  }
  if (c.mask == MaskKind::kAdditive && !b.mask_additive &&
      fail("additive attn_mask (not supported)")) {
    return false;
  }
  if (c.mask_requires_grad && !b.mask_grad &&
      fail("attn_mask.requires_grad (no gradient for the mask)")) {
    return false;
  }
  const Features& used = c.features;
  const Features& has = b.features;
  const std::tuple<bool, bool, const char*> features[] = {
      {used.dropout, has.dropout, "dropout_p > 0"},
      {used.window, has.window, "window_size (sliding window)"},
      {used.alibi, has.alibi, "alibi_slopes"},
      {used.softcap, has.softcap, "softcap"},
      {used.varlen, has.varlen, "variable-length (cu_seqlens) inputs"}};
  for (auto [used, supported, name] : features) {
    if (used && !supported && fail(name, " (not supported)")) return false;
  }
  if (used.value_head_dim && !has.value_head_dim && !runs_value_pair(b, c)) {
    if (reasons == nullptr) return false;
    std::string pairs;
    for (auto [qk, v] : b.value_head_dim_pairs) {
      pairs += (pairs.empty() ? "(" : ", (") + std::to_string(qk) + ", " + std::to_string(v) + ")";
    }
    if (pairs.empty()) {
      fail("a head_dim of value different from query's (not supported)");
    } else {
      fail("a head_dim of value different from query's (", c.head_dim_qk, ", ", c.head_dim_v,
           "): runs only (q/k, v) head dims in ", pairs,
           ", without dropout, on compute capability >= 9.0");
    }
  }
  if (c.needs_grad && !b.backward &&
      fail("backward not implemented yet (inputs require grad)")) {
    return false;
  }
  if (b.unavailable) return ok;
  // What a build with a subset of the kernels (FLASH_EXT_HDIMS, FLASH_EXT_DTYPES) lacks.
  if (b.built_dtypes && contains(b.dtypes, c.dtype) && !contains(*b.built_dtypes, c.dtype)) {
    std::vector<std::string> built;
    for (auto t : *b.built_dtypes) built.push_back(build_dtype_name(t));
    std::sort(built.begin(), built.end());
    std::string list;
    for (const auto& n : built) list += (list.empty() ? "" : ";") + n;
    if (fail("not built: ", dtype_names({c.dtype}), " kernels not in this build "
             "(FLASH_EXT_DTYPES=", list, ")")) {
      return false;
    }
  }
  const int64_t kernel = kernel_dim(b, c.head_dim);
  if (b.built_head_dims && contains(b.kernel_head_dims, kernel) &&
      !contains(*b.built_head_dims, kernel)) {
    std::string list;
    for (auto d : *b.built_head_dims) list += (list.empty() ? "" : ";") + std::to_string(d);
    if (fail("not built: head dim kernel ", kernel, " not in this build (FLASH_EXT_HDIMS=",
             list, ")")) {
      return false;
    }
  }
  return ok;
}

BackendTable backend_table() { return std::atomic_load(&table_ptr); }

void set_backend_table(std::vector<BackendCaps> table) {
  std::atomic_store(&table_ptr, BackendTable(std::make_shared<const std::vector<BackendCaps>>(
                                     std::move(table))));
}

std::vector<std::vector<std::string>> all_reasons(const CallInfo& call) {
  std::vector<std::vector<std::string>> reasons;
  for (const BackendCaps& b : *backend_table()) {
    supports(b, call, &reasons.emplace_back());
  }
  return reasons;
}

std::string explanation_text(const std::string& selected, const std::vector<std::string>& names,
                             const std::vector<std::vector<std::string>>& reasons) {
  std::string text = "selected backend: " + (selected.empty() ? std::string("none") : selected);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == selected) continue;
    std::string why;
    for (const auto& r : reasons[i]) why += (why.empty() ? "" : "; ") + r;
    text += "\n  " + names[i] + ": " + (why.empty() ? "runs only when asked for (backend=...)" : why);
  }
  return text;
}

std::optional<std::string> find_backend(const CallInfo& call,
                                        std::optional<std::string_view> requested) {
  const BackendTable table = backend_table();
  if (requested) {
    const auto it = std::find_if(table->begin(), table->end(),
                                 [&](const BackendCaps& b) { return b.name == *requested; });
    if (it == table->end()) {
      std::string accepted;
      for (const auto& b : *table) accepted += (accepted.empty() ? "'" : ", '") + b.name + "'";
      TORCH_CHECK_VALUE(false, "backend='", *requested, "' is not a backend; accepted: (",
                        accepted, ")");
    }
    if (supports(*it, call)) return it->name;
    return std::nullopt;
  }
  for (const BackendCaps& b : *table) {
    if (b.automatic && supports(b, call)) return b.name;
  }
  return std::nullopt;
}

std::string select_backend(const CallInfo& call, std::optional<std::string_view> requested) {
  if (auto name = find_backend(call, requested)) return *std::move(name);
  const BackendTable table = backend_table();
  const std::vector<std::vector<std::string>> reasons = all_reasons(call);
  std::vector<std::string> names;
  for (const auto& b : *table) names.push_back(b.name);
  if (requested) {
    const size_t i = std::find(names.begin(), names.end(), *requested) - names.begin();
    std::string why;
    for (const auto& r : reasons[i]) why += (why.empty() ? "" : "; ") + r;
    TORCH_CHECK_NOT_IMPLEMENTED(false, "backend='", *requested, "' cannot run this call: ", why);
  }
  TORCH_CHECK_NOT_IMPLEMENTED(false, "no flash_ext backend can run this call:\n",
                              explanation_text("", names, reasons));
}

void set_capability_query(CapabilityQuery query) { capability_query.store(query); }

std::optional<std::pair<int, int>> compute_capability(int device_index) {
  const CapabilityQuery query = capability_query.load();
  if (query == nullptr) return std::nullopt;
  // Encoded as 1 + 16 * major + minor per device; 0 until first asked.
  static std::array<std::atomic<int>, 64> cache{};
  if (device_index < 0 || device_index >= static_cast<int>(cache.size())) {
    return query(device_index);
  }
  int code = cache[device_index].load(std::memory_order_relaxed);
  if (code == 0) {
    const auto [major, minor] = query(device_index);
    code = 1 + 16 * major + minor;
    cache[device_index].store(code, std::memory_order_relaxed);
  }
  return std::pair{(code - 1) / 16, (code - 1) % 16};
}

}  // namespace flash_ext

// Per-thread fp32 workspace of the CPU kernels: one 64-byte aligned allocation per thread and
// call, carved into the buffers of a work item.
#pragma once

#include <c10/core/impl/alloc_cpu.h>
#include <c10/util/Exception.h>

#include <cstdint>

namespace flash_ext::cpu {

class Scratch {
 public:
  explicit Scratch(int64_t floats)
      : data_(static_cast<float*>(c10::alloc_cpu(static_cast<size_t>(floats + 16) * 4))),
        capacity_(floats + 16) {}
  ~Scratch() { c10::free_cpu(data_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  // Next `floats` floats, 64-byte aligned; the caller sized the workspace for all of them.
  float* take(int64_t floats) {
    float* out = data_ + used_;
    used_ += footprint(floats);
    TORCH_INTERNAL_ASSERT(used_ <= capacity_, "flash_ext cpu scratch overflow");
    return out;
  }

  // Floats that take(floats) consumes, for sizing the workspace.
  static int64_t footprint(int64_t floats) { return (floats + 15) / 16 * 16; }

 private:
  float* data_;
  int64_t capacity_;
  int64_t used_ = 0;
};

}  // namespace flash_ext::cpu

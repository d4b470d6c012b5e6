// An executor runs one configuration (variant, element type, shape) on its backend:
// checks it against the reference on fresh random data with a poisoned output, then
// times it with the backend's own clock. The harness knows no backend beyond this.
#pragma once
#include <stdexcept>
#include <string>

#include "tlab/env.hpp"
#include "tlab/registry.hpp"
#include "tlab/timing.hpp"

namespace tlab {

struct Config {
  const Variant* variant = nullptr;
  DType dtype = DType::i32;
  Shape shape;
};

struct Result {
  Config config;
  Timed timed;
  std::string cache;  // "warm" (data left in caches by earlier runs) or "cold" (flushed)
};

// Thrown when a variant's output differs from the reference: a bug, never a data point.
struct VerificationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown when a configuration cannot run here (host or device memory, say); the message
// is one line that names what is short.
struct ResourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Output poisoned, variant run once, compared exactly. Throws VerificationError.
  virtual void verify(const Config& c) = 0;
  // Runs the variant once on the host matrix `in` and copies its output (shape transposed,
  // or the same shape for a copy peer) to `out`, checking nothing: tests use it to show
  // exactly what a wrong variant computes.
  virtual void apply(const Config& c, const void* in, void* out) = 0;
  // Verifies, then times. Throws VerificationError or ResourceError.
  virtual Result run(const Config& c, const TimingPolicy& p) = 0;
  virtual std::string device_name() const = 0;
  // Bytes one configuration of (t, s) needs on this backend's memory, and the bytes free
  // there now: the runner refuses a sweep up front rather than failing hours into it.
  virtual double bytes_needed(DType t, Shape s) const = 0;
  virtual double bytes_free() const = 0;
  virtual Fields describe() const = 0;
};

// The executor for a backend, or nullptr with the reason in *why (no CUDA in this build,
// no device on this machine).
Executor* executor_for(Backend b, std::string* why);

}  // namespace tlab

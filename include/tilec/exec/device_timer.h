// DeviceTimedModule: the optional device-timer hook of a loaded module. A LoadedModule
// whose execution backend can time its launches with the device's own clock (OpenCL
// profiling events, WebGPU timestamp queries) implements it too; tilec bench/tune
// (tilec/engine/bench.h) find it with a dynamic_cast and time on the host without it.
#pragma once

#include <optional>
#include <string>

namespace tilec::exec {

class DeviceTimedModule {
 public:
  virtual ~DeviceTimedModule() = default;
  // The device time, in milliseconds, of the kernel launches this module ran since the
  // previous take (on any thread), summed, then reset to zero. nullopt when those
  // launches were not timed (the caller then uses the host wall time).
  virtual std::optional<double> take_device_time_ms() const = 0;
  // The timer's name for reports ("OpenCL profiling events"); "" when it cannot time.
  virtual std::string device_clock() const = 0;
};

}  // namespace tilec::exec

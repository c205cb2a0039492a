// The device stream of the kernel calls this thread makes: a per-call setting of the
// runtime (TilecRuntimeEnv.stream, runtime/abi.h), held by a ScopedStream for the
// calls inside its scope. call_host_entry hands it to the host entry, which orders its
// copies and launches on it; calling a kernel without a device (the CPU) while a
// stream is set is an error, since nothing would run on the stream.
#pragma once

namespace tilec::runtime {

// The stream of this thread's calls; nullptr (the device's default stream) unless a
// ScopedStream is alive.
void* current_stream();

class ScopedStream {
 public:
  explicit ScopedStream(void* stream);  // e.g. a CUstream; nullptr: the default stream
  ~ScopedStream();
  ScopedStream(const ScopedStream&) = delete;
  ScopedStream& operator=(const ScopedStream&) = delete;

 private:
  void* previous_;
};

}  // namespace tilec::runtime

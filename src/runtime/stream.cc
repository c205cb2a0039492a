#include "tilec/runtime/stream.h"

namespace tilec::runtime {
namespace {

thread_local void* t_stream = nullptr;

}  // namespace

void* current_stream() {
  return t_stream;
}

ScopedStream::ScopedStream(void* stream) : previous_(t_stream) {
  t_stream = stream;
}

ScopedStream::~ScopedStream() {
  t_stream = previous_;
}

}  // namespace tilec::runtime

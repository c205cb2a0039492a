#include "tilec/cuda/module.h"

#include "tilec/backend/module_registrations.h"
#include "tilec/cuda/detector.h"

namespace tilec::cuda {

void register_cuda_module() {
  backend::register_module_target_detector(kCudaDetectorName, detect_cuda,
                                           target::kAcceleratorDetectorPriority);
}

}  // namespace tilec::cuda

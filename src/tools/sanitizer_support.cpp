// Sanitizer builds only: keeps Mesa's driver mapped until exit, so LeakSanitizer can attribute
// the driver's allocations instead of reporting them as leaks from a module that eglTerminate
// already unloaded (docs/platform.md §9; suppression files cannot match those frames). The test
// binary does the same in tests/test_support.cpp; this covers the tool the tests run. Normal
// builds compile this file to nothing.
#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>

__attribute__((constructor)) static void keep_mesa_driver_mapped() {
  dlopen("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
}
#endif

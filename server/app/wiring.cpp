#include "app/app.hpp"

namespace emsim::app {

void Wire(Services& svc) {
  (void)svc;
}

}  // namespace emsim::app

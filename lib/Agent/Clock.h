//===- Clock.h - Wall time for the agent's phases (private) ----*- C++ -*-===//
#ifndef ASTRA_LIB_AGENT_CLOCK_H
#define ASTRA_LIB_AGENT_CLOCK_H

#include <chrono>

namespace astra {
namespace agent {
using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}
} // namespace agent
} // namespace astra

#endif

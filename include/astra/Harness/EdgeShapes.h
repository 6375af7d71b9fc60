//===- EdgeShapes.h - Generated edge shapes inside a spec's domain -*- C++
//-*-===//
//
// Besides the spec's own shapes, the harness checks correctness on generated
// edge shapes (docs/harness.md, "Correctness"): from the spec's smallest
// shape, each shape variable in turn takes small, odd and prime values (one
// element, vector widths +-1, a prime), and values its domain suggests (odd
// multiples of its `multiple_of`, powers of two from its minimum, its
// bounds). Only shapes inside the spec's domain (`"vars"`, docs/spec.md) are
// generated: a kernel is not refused for what it does on shapes it is never
// launched with. What was not generated is returned with the reason, for the
// report.
//
//===----------------------------------------------------------------------===//
#ifndef ASTRA_HARNESS_EDGESHAPES_H
#define ASTRA_HARNESS_EDGESHAPES_H

#include "astra/Harness/Expr.h"
#include <cstdint>
#include <string>
#include <vector>

namespace astra {

struct KernelSpec;

/// A candidate edge shape that was not generated, or a variable that was
/// not varied.
struct SkippedEdgeShape {
  /// The value tried, "B=3"; for a variable that is not varied, its name.
  std::string Probe;
  /// The whole candidate shape, "T=1, B=3" (empty for a fixed variable).
  std::string Shape;
  /// Why: "B must be a power of two", "not varied (\"vary\": false)",
  /// "not a valid launch: ...", "larger than 64 MiB ...".
  std::string Reason;
};

struct EdgeShapeSet {
  std::vector<Shape> Shapes;
  std::vector<SkippedEdgeShape> Skipped;

  /// The skipped candidates as report notes, one line per reason:
  /// "edge shapes skipped (B must be a power of two): B=3, B=5".
  std::vector<std::string> notes() const;
};

/// Largest total buffer size of a generated shape.
constexpr uint64_t MaxEdgeShapeBytes = 64u << 20;

/// Generated edge shapes for \p K: from the spec's smallest valid shape (by
/// buffer bytes), each varied variable set in turn to 1, 3, 5, 7, 9, 15, 17,
/// 97 and to the values its domain suggests; a candidate is kept when it is
/// new, lies in the domain, resolves (launch limits) and stays under
/// MaxEdgeShapeBytes (the other varied variables above 128 shrink to 128
/// first, where the domain allows it).
EdgeShapeSet deriveEdgeShapes(const KernelSpec &K);

} // namespace astra

#endif // ASTRA_HARNESS_EDGESHAPES_H

// Checks only emsim's control plane makes possible: a real 500 is hard to provoke on purpose,
// so Part 7's 500 shape is checked on an answer injected through /_sim/faults.
#include "live.hpp"

namespace contract {
namespace {

TEST(Errors, ServerFailureHasPart7Shape) {
  REQUIRE_EMSIM("a 500 is provoked with /_sim/faults");
  FaultGuard faults;
  ASSERT_NE(faults.Add({{"method", "GET"}, {"path", "/v1/workspace/list"}, {"status", 500}}), "");
  // Part 7: 500 {status, message, errorId}; errorId is a UUID v4.
  ExpectError(Invoke("workspaces.list"), 500);
}

TEST(Errors, UnknownPathIs404) {
  REQUIRE_EMSIM_GAP("an unknown path answers 404 in the 401 shape");
  Call c;
  c.path = "/v1/contract-suite/no-such-endpoint";
  Reply r = Send(c, "unknown path");
  if (r.status != 404) Violation("unknown path", "HTTP status", "must be 404, got " + r.Brief());
}

TEST(Control, HealthAndClockAnswerAsDocumented) {
  REQUIRE_EMSIM("the /_sim control plane");
  Reply health = Sim("GET", "/_sim/health");
  ASSERT_EQ(health.status, 200) << health.Brief();
  EXPECT_EQ(health.body.value("status", ""), "ok");
  EXPECT_TRUE(IsIsoMillisUtc(health.body.value("now", ""))) << health.Brief();
  Reply clock = Sim("GET", "/_sim/clock");
  ASSERT_EQ(clock.status, 200) << clock.Brief();
  EXPECT_TRUE(IsIsoMillisUtc(clock.body.value("now", ""))) << clock.Brief();
  EXPECT_TRUE(clock.body["epochMs"].is_number_integer()) << clock.Brief();
}

}  // namespace
}  // namespace contract

#pragma once
// Helpers shared by the money tests (subscriptions, placement tests, DNS shield, wallet).
#include <string>
#include <vector>

#include "tests/support/test_server.hpp"

namespace emsim::testing {

// The Part 6 envelope of a recorded event, as a delivery would carry it.
inline json EnvelopeOf(const model::Event& e) {
  return {{"id", e.id}, {"type", e.type}, {"created", e.createdMs / 1000}, {"api_version", e.apiVersion}, {"data", e.data}};
}

// Envelopes of the events of `type` recorded so far, oldest first.
inline std::vector<json> EventsOf(TestServer& server, const std::string& type) {
  return server.svc().store.Read([&](const model::State& s) {
    std::vector<json> out;
    for (const auto& e : s.events)
      if (e.type == type) out.push_back(EnvelopeOf(e));
    return out;
  });
}

inline size_t EventCount(TestServer& server) {
  return server.svc().store.Read([](const model::State& s) { return s.events.size(); });
}

// Wallet balance in cents through GET /_sim/wallet.
inline std::int64_t WalletCents(TestServer& server, const std::string& key = kAliceKey) {
  auto r = server.Get("/_sim/wallet", key);
  EXPECT_EQ(r.status, 200) << r.raw;
  return r.body.value("balanceCents", std::int64_t{-1});
}

// A 400 in Part 7's shape whose first entry names `param_name`. `expr` is evaluated once.
#define EXPECT_VALIDATION_ERROR(server, expr, param_name)                                      \
  do {                                                                                         \
    const ::emsim::testing::HttpResult r_ = (expr);                                            \
    EXPECT_EQ(r_.status, 400) << r_.raw;                                                       \
    EXPECT_CONFORMS(server, "resources/error_validation", r_.body);                            \
    if (r_.body.contains("errors") && !r_.body["errors"].empty())                              \
      EXPECT_EQ(r_.body["errors"][0]["param"], param_name) << r_.raw;                          \
    else                                                                                       \
      ADD_FAILURE() << "no errors[] in " << r_.raw;                                            \
  } while (0)

// A 401/404 in the {status, message, errorId} shape. `expr` is evaluated once.
#define EXPECT_ERROR_WITH_ID(server, expr, code)                   \
  do {                                                             \
    const ::emsim::testing::HttpResult r_ = (expr);                \
    EXPECT_EQ(r_.status, code) << r_.raw;                          \
    EXPECT_CONFORMS(server, "resources/error_with_id", r_.body);   \
  } while (0)

}  // namespace emsim::testing

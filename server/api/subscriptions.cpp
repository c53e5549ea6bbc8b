#include "api/subscriptions.hpp"

#include "api/shapes.hpp"
#include "core/messages.hpp"
#include "model/subscriptions.hpp"

namespace emsim::api {

app::Reply ListSubscriptions(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) {
    json data = json::array();
    for (const auto* sub : model::ListSubscriptions(s, ctx.caller.accountId)) data.push_back(SubscriptionRecord(*sub));
    return app::Envelope(model::msg::kSuccess, std::move(data));
  });
}

app::Reply CancelSubscription(app::Ctx& ctx) {
  const std::string id = ctx.req.body.at("subscriptionId");  // schema: required string
  auto done = ctx.Write(
      [&](model::State& s) { return model::CancelSubscription(s, ctx.caller.accountId, id, ctx.now); });
  if (!done) return done.error();
  // Part 4.6: {message, data: null}, no status field.
  return app::Json({{"message", model::msg::kSubscriptionCancelled}, {"data", nullptr}});
}

app::Reply UpgradeSubscription(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // schema: subscriptionId required, plan keys optional strings
  model::UpgradeRequest in;
  in.subscriptionId = b.at("subscriptionId");
  if (b.contains("uniquePlanKey")) in.uniquePlanKey = b["uniquePlanKey"].get<std::string>();
  if (b.contains("lookupKey")) in.lookupKey = b["lookupKey"].get<std::string>();
  auto done = ctx.Write(
      [&](model::State& s) { return model::UpgradeSubscription(s, ctx.caller.accountId, in, ctx.now); });
  if (!done) return done.error();
  return app::Json(json::object());  // Part 4.6: the body is an empty object
}

}  // namespace emsim::api

#include "api/workspaces.hpp"

#include "api/shapes.hpp"
#include "core/messages.hpp"
#include "model/workspaces.hpp"

namespace emsim::api {

app::Reply ListWorkspaces(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) {
    // Written as text (core/json_out.hpp): the bytes of Envelope(kSuccess, [WorkspaceRecord]).
    core::JsonOut w;
    w.BeginObject().Key("data").BeginArray();
    for (const auto& v : model::ListWorkspaces(s, ctx.caller)) WriteWorkspaceRecord(w, *v.workspace, v.domainCount, v.mailboxCount);
    w.EndArray();
    return FinishTextEnvelope(w);
  });
}

namespace {

// The billing fields of Part 4.1's body, also the billingDetails of workspaces.create (shapes
// checked by their request schemas); workspaceId is the caller's to set.
model::BillingInput BillingInputOf(const json& b) {
  model::BillingInput in;
  in.firstName = b.at("firstName");
  in.lastName = b.at("lastName");
  in.company = b.at("company");
  in.addressLineOne = b.at("addressLineOne");
  in.addressLineTwo = b.value("addressLineTwo", json()).get<std::optional<std::string>>();
  in.addressLineThree = b.value("addressLineThree", json()).get<std::optional<std::string>>();
  in.city = b.at("city");
  in.state = b.at("state");
  in.country = b.at("country");
  in.postalCode = b.at("postalCode");
  in.phoneCc = b.at("phoneCc");
  in.phone = b.at("phone");
  return in;
}

}  // namespace

app::Reply AddOrUpdateBilling(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // shape checked by schemas/requests/billing.add_or_update.json
  model::BillingInput in = BillingInputOf(b);
  in.workspaceId = b.at("workspaceId");
  auto done = ctx.Write([&](model::State& s) { return model::AddOrUpdateBilling(s, ctx.caller, in, ctx.now); });
  if (!done) return done.error();
  return app::Envelope(model::msg::kBillingSaved, nullptr);
}

// The answers' data is the workspace as GET /v1/workspace/list shows it (gap decision: the
// reference's 200 body shows no fields beyond status and message).
app::Reply CreateWorkspace(app::Ctx& ctx) {
  const json& b = ctx.req.body;
  std::optional<model::BillingInput> billing;
  if (b.contains("billingDetails")) billing = BillingInputOf(b["billingDetails"]);
  return ctx.Write([&](model::State& s) -> app::Reply {
    auto w = model::CreateWorkspace(s, ctx.caller, b.at("name").get<std::string>(), ctx.now,
                                    billing ? &*billing : nullptr);
    if (!w) return w.error();
    return app::Envelope("Workspace created successfully", WorkspaceRecord(**w, 0, 0));
  });
}

app::Reply UpdateWorkspace(app::Ctx& ctx) {
  const json& b = ctx.req.body;
  return ctx.Write([&](model::State& s) -> app::Reply {
    auto w = model::RenameWorkspace(s, ctx.caller, b.at("id").get<std::string>(), b.at("name").get<std::string>());
    if (!w) return w.error();
    for (const auto& v : model::ListWorkspaces(s, ctx.caller))
      if (v.workspace == *w) return app::Envelope("Workspace updated successfully", WorkspaceRecord(**w, v.domainCount, v.mailboxCount));
    return model::Error::Internal("renamed workspace is missing");
  });
}

}  // namespace emsim::api

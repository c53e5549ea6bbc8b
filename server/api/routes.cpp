#include "api/routes.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <string_view>

#include "api/dns_shield.hpp"
#include "api/domains.hpp"
#include "api/exports.hpp"
#include "api/mailboxes.hpp"
#include "api/onebox.hpp"
#include "api/placement_tests.hpp"
#include "api/control/billing.hpp"
#include "api/control/checkouts.hpp"
#include "api/control/faults.hpp"
#include "api/control/openapi.hpp"
#include "api/control/control.hpp"
#include "api/control/events.hpp"
#include "api/control/exports.hpp"
#include "api/control/scenarios.hpp"
#include "api/control/sinks.hpp"
#include "api/control/ui.hpp"
#include "api/subscriptions.hpp"
#include "api/wallet.hpp"
#include "api/webhooks.hpp"
#include "api/workspaces.hpp"

namespace emsim::api {

namespace {

// Every handler, by the operation id it serves: the table of contents of the API (STYLE.md
// habit 1). Its method, path, access and body format are the catalogue's
// (schemas/operations.json); no handler is registered anywhere else.
const std::map<std::string_view, app::Handler>& Handlers() {
  // clang-format off
  static const std::map<std::string_view, app::Handler> kHandlers = {
    // ---- Part 4.1 billing, 4.2 workspaces -------------------------------------------------------
    {"workspaces.list",                     &api::ListWorkspaces},
    {"billing.add_or_update",               &api::AddOrUpdateBilling},
    // ---- Part 4.3 mailboxes ---------------------------------------------------------------------
    {"mailboxes.list",                      &api::ListMailboxes},
    {"mailboxes.details",                   &api::MailboxDetails},
    // ---- Part 4.4 domains -----------------------------------------------------------------------
    {"domains.list",                        &api::ListDomains},
    {"domains.available",                   &api::AvailableDomains},
    {"domains.buy",                         &api::BuyDomain},
    {"domains.dns_check",                   &api::DnsCheck},
    {"domains.add_dmarc",                   &api::AddDmarc},
    {"domains.enable_forwarding",           &api::EnableForwarding},
    {"domains.enable_catch_all",            &api::EnableCatchAll},
    // ---- Part 4.5 exports -----------------------------------------------------------------------
    {"exports.export_mailboxes",            &api::ExportMailboxes},
    {"exports.update_third_party_account",  &api::UpdateThirdPartyAccount},
    // ---- Part 4.6 subscriptions (the account's; workspace headers ignored) ----------------------
    {"subscriptions.list",                  &api::ListSubscriptions},
    {"subscriptions.cancel",                &api::CancelSubscription},
    {"subscriptions.upgrade",               &api::UpgradeSubscription},
    // ---- Part 4.7 placement tests (mailboxes of the selected workspace, the account's wallet) ---
    {"placement_tests.purchase",            &api::PurchasePlacementTests},
    // ---- Part 4.8 DNS shield (the account's lifetime-deal subscriptions) ------------------------
    {"dns_shield.available_slots",          &api::DnsShieldAvailableSlots},
    {"dns_shield.upgrade_plan",             &api::DnsShieldUpgradePlan},
    // ---- Part 4.9 mailbox search ----------------------------------------------------------------
    {"onebox.search_emails",                &api::SearchEmails},
    // ---- Part 4.10 webhook management (account-scoped: x-workspace-key ignored) -----------------
    {"webhooks.events",                     &api::ListWebhookEventTypes},
    {"webhooks.create",                     &api::CreateWebhookEndpoint},
    {"webhooks.list",                       &api::ListWebhookEndpoints},
    {"webhooks.update",                     &api::UpdateWebhookEndpoint},
    // ---- Part 4.11: from the public reference, not the spec (README, "Operations from the public reference")
    {"users.details",                       &api::UserDetails},
    {"workspaces.create",                   &api::CreateWorkspace},
    {"workspaces.update",                   &api::UpdateWorkspace},
    {"mailboxes.assign",                    &api::AssignMailboxes},
    {"mailboxes.update",                    &api::UpdateMailboxes},
    {"mailboxes.scheduled_removal",         &api::ScheduleMailboxRemoval},
    {"wallet.balance",                      &api::WalletBalance},
    {"wallet.add_balance",                  &api::AddWalletBalance},
    {"wallet.auto_recharge",                &api::EnableAutoRecharge},
    {"domains.remove_unused",               &api::RemoveUnusedDomains},
    // ---- /_sim control plane (DESIGN.md) --------------------------------------------------------
    {"sim.health",                          &api::SimHealth},
    {"sim.openapi",                         &api::SimOpenApi},
    {"sim.reset",                           &api::SimReset},
    {"sim.state.get",                       &api::SimGetState},
    {"sim.state.put",                       &api::SimPutState},
    {"sim.requests.list",                   &api::SimListRequests},
    {"sim.requests.count",                  &api::SimCountRequests},
    {"sim.requests.clear",                  &api::SimClearRequests},
    {"sim.clock.get",                       &api::SimGetClock},
    {"sim.clock.put",                       &api::SimPutClock},
    {"sim.clock.advance",                   &api::SimAdvanceClock},
    {"sim.checkout.get",                    &api::SimGetCheckout},
    {"sim.checkout.complete",               &api::SimCompleteCheckout},
    {"sim.domains.transition",              &api::SimTransitionDomain},
    {"sim.wallet.get",                      &api::SimGetWallet},
    {"sim.wallet.put",                      &api::SimPutWallet},
    {"sim.wallet.movements",                &api::SimListWalletMovements},
    {"sim.invoices.get",                    &api::SimGetInvoice},
    {"sim.placement_checkouts.get",         &api::SimGetPlacementCheckout},
    {"sim.placement_checkouts.complete",    &api::SimCompletePlacementCheckout},
    // ---- /_sim events, webhook deliveries, sinks (Part 6) ---------------------------------------
    {"sim.events.list",                     &api::SimListEvents},
    {"sim.events.trigger",                  &api::SimTriggerEvent},
    {"sim.events.resend",                   &api::SimResendEvent},
    {"sim.trigger",                         &api::SimTriggerChange},
    {"sim.deliveries.list",                 &api::SimListDeliveries},
    {"sim.notifications.list",              &api::SimListNotifications},
    {"sim.sinks.create",                    &api::SimCreateSink},
    {"sim.sinks.list",                      &api::SimListSinks},
    {"sim.sinks.get",                       &api::SimGetSink},
    {"sim.sinks.update",                    &api::SimUpdateSink},
    {"sim.sinks.receive",                   &api::SimSinkReceive},
    // ---- /_sim exports, tenants ------------------------------------------------------------------
    {"sim.exports.list",                    &api::SimListExports},
    {"sim.exports.get",                     &api::SimGetExport},
    {"sim.tenants.create",                  &api::SimCreateTenant},
    {"sim.tenants.list",                    &api::SimListTenants},
    {"sim.tenants.reset",                   &api::SimResetTenant},
    {"sim.tenants.delete",                  &api::SimDeleteTenant},
    // ---- /_sim scenarios, faults ----------------------------------------------------------------
    {"sim.scenarios.run",                   &api::SimRunScenario},
    {"sim.faults.create",                   &api::SimCreateFault},
    {"sim.faults.list",                     &api::SimListFaults},
    {"sim.faults.clear",                    &api::SimClearFaults},
    {"sim.faults.delete",                   &api::SimDeleteFault},
    // ---- /_sim/ui, the dashboard (files embedded in the binary) ---------------------------------
    {"sim.ui.page",                         &api::SimUiPage},
    {"sim.ui.file",                         &api::SimUiFile},
  };
  // clang-format on
  return kHandlers;
}

}  // namespace

std::vector<app::Route> Routes(const schema::Catalogue& operations) {
  if (operations.All().empty())
    throw std::runtime_error("the schemas folder has no catalogue of operations (operations.json)");
  const auto& handlers = Handlers();
  std::vector<app::Route> routes;
  std::set<std::string_view> served;
  std::string problems;
  for (const auto& op : operations.All()) {
    const auto h = handlers.find(op.id);
    if (h == handlers.end()) {
      problems += "\n  operation " + op.id + " (" + op.method + " " + op.path + ") has no handler in server/api/routes.cpp";
      continue;
    }
    served.insert(h->first);
    // An operation the catalogue says only reads runs under the store's shared lock.
    routes.push_back({op.method.c_str(), op.path.c_str(), op.id.c_str(), op.access, h->second, op.body,
                      op.effect == schema::Effect::kRead, op.bodyLimit});
  }
  for (const auto& [id, handler] : handlers)
    if (!served.count(id)) problems += "\n  the handler of " + std::string(id) + " has no entry in schemas/operations.json";
  if (!problems.empty())
    throw std::runtime_error("the catalogue of operations and the handlers disagree:" + problems);
  return routes;
}

}  // namespace emsim::api

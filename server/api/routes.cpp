#include "api/routes.hpp"

#include "api/dns_shield.hpp"
#include "api/domains.hpp"
#include "api/exports.hpp"
#include "api/mailboxes.hpp"
#include "api/onebox.hpp"
#include "api/placement_tests.hpp"
#include "api/control/billing.hpp"
#include "api/control/faults.hpp"
#include "api/control/control.hpp"
#include "api/control/events.hpp"
#include "api/control/exports.hpp"
#include "api/control/scenarios.hpp"
#include "api/control/sinks.hpp"
#include "api/subscriptions.hpp"
#include "api/webhooks.hpp"
#include "api/workspaces.hpp"

namespace emsim::api {

using app::Access;
using app::BodyFormat;
using app::Route;

const std::vector<Route>& Routes() {
  using A = Access;
  using B = BodyFormat;
  // clang-format off
  static const std::vector<Route> kRoutes = {
    // ---- Part 4.1 billing, 4.2 workspaces ------------------------------------------------------
    {"GET",  "/v1/workspace/list",                   "workspaces.list",        A::kWorkspace, &api::ListWorkspaces},
    {"POST", "/v1/billing-details/add-or-update",    "billing.add_or_update",  A::kWorkspace, &api::AddOrUpdateBilling},
    // ---- Part 4.3 mailboxes -------------------------------------------------------------------
    {"GET",  "/v1/mailbox/list",                     "mailboxes.list",         A::kWorkspace, &api::ListMailboxes},
    {"GET",  "/v1/mailbox/details",                  "mailboxes.details",      A::kWorkspace, &api::MailboxDetails},
    // ---- Part 4.4 domains ---------------------------------------------------------------------
    {"GET",  "/v1/domain/list",                      "domains.list",           A::kWorkspace, &api::ListDomains},
    {"POST", "/v1/domain/available",                 "domains.available",      A::kWorkspace, &api::AvailableDomains, B::kJson, app::kReadOnly},
    // Part 5 leaves open whether buy-domain needs the key; emsim requires it (README gap table).
    {"POST", "/v1/domain/buy-domain",                "domains.buy",            A::kWorkspace, &api::BuyDomain},
    {"POST", "/v1/domain/dns-check",                 "domains.dns_check",      A::kWorkspace, &api::DnsCheck, B::kJson, app::kReadOnly},
    {"POST", "/v1/domain/add-dmarc",                 "domains.add_dmarc",      A::kWorkspace, &api::AddDmarc},
    {"POST", "/v1/domain/enable-email-forwarding",   "domains.enable_forwarding", A::kWorkspace, &api::EnableForwarding},
    {"POST", "/v1/domain/enable-catch-all-email",    "domains.enable_catch_all",  A::kWorkspace, &api::EnableCatchAll},
    // ---- Part 4.5 exports ---------------------------------------------------------------------
    {"POST", "/v1/exports/export-mailboxes",         "exports.export_mailboxes",           A::kWorkspace, &api::ExportMailboxes},
    {"POST", "/v1/exports/update-third-party-account", "exports.update_third_party_account", A::kWorkspace, &api::UpdateThirdPartyAccount},
    // ---- Part 4.6 subscriptions (the account's; workspace headers ignored) ----------------------
    {"GET",  "/v1/user/subscriptions",               "subscriptions.list",     A::kAccount,   &api::ListSubscriptions},
    {"POST", "/v1/user/cancel-subscription",         "subscriptions.cancel",   A::kAccount,   &api::CancelSubscription},
    {"POST", "/v2/subscriptions/upgrade",            "subscriptions.upgrade",  A::kAccount,   &api::UpgradeSubscription},
    // ---- Part 4.7 placement tests (mailboxes of the selected workspace, the account's wallet) ---
    {"POST", "/v2/placement-tests/purchase",         "placement_tests.purchase", A::kWorkspace, &api::PurchasePlacementTests},
    // ---- Part 4.8 DNS shield (the account's lifetime-deal subscriptions) ------------------------
    {"GET",  "/v2/dns-shield/available-slots",       "dns_shield.available_slots", A::kAccount, &api::DnsShieldAvailableSlots},
    {"POST", "/v2/dns-shield/upgrade-plan",          "dns_shield.upgrade_plan", A::kAccount,  &api::DnsShieldUpgradePlan},
    // ---- Part 4.9 mailbox search --------------------------------------------------------------
    {"GET",  "/v2/onebox/search-emails",             "onebox.search_emails",   A::kWorkspace, &api::SearchEmails},
    // ---- Part 4.10 webhook management (account-scoped: x-workspace-key ignored) ----------------
    {"GET",   "/v2/webhooks/events",                 "webhooks.events",        A::kAccount,   &api::ListWebhookEventTypes},
    {"POST",  "/v2/webhooks/endpoints",              "webhooks.create",        A::kAccount,   &api::CreateWebhookEndpoint},
    {"GET",   "/v2/webhooks/endpoints",              "webhooks.list",          A::kAccount,   &api::ListWebhookEndpoints},
    {"PATCH", "/v2/webhooks/endpoints/:id",          "webhooks.update",        A::kAccount,   &api::UpdateWebhookEndpoint},
    // ---- /_sim control plane (DESIGN.md) ------------------------------------------------------
    {"GET",  "/_sim/health",                         "sim.health",             A::kControl,   &api::SimHealth},
    {"POST", "/_sim/reset",                          "sim.reset",              A::kControl,   &api::SimReset},
    {"GET",  "/_sim/state",                          "sim.state.get",          A::kControl,   &api::SimGetState},
    {"PUT",  "/_sim/state",                          "sim.state.put",          A::kControl,   &api::SimPutState},
    {"GET",  "/_sim/requests",                       "sim.requests.list",      A::kControl,   &api::SimListRequests},
    {"GET",  "/_sim/clock",                          "sim.clock.get",          A::kControl,   &api::SimGetClock},
    {"PUT",  "/_sim/clock",                          "sim.clock.put",          A::kControl,   &api::SimPutClock},
    {"POST", "/_sim/clock/advance",                  "sim.clock.advance",      A::kControl,   &api::SimAdvanceClock},
    {"GET",  "/_sim/checkout/:id",                   "sim.checkout.get",       A::kControl,   &api::SimGetCheckout},
    {"POST", "/_sim/checkout/:id/complete",          "sim.checkout.complete",  A::kControl,   &api::SimCompleteCheckout},
    {"POST", "/_sim/domains/:id/transition",         "sim.domains.transition", A::kControl,   &api::SimTransitionDomain},
    {"GET",  "/_sim/wallet",                         "sim.wallet.get",         A::kControl,   &api::SimGetWallet},
    {"PUT",  "/_sim/wallet",                         "sim.wallet.put",         A::kControl,   &api::SimPutWallet},
    {"GET",  "/_sim/invoices/:id",                   "sim.invoices.get",       A::kControl,   &api::SimGetInvoice},
    {"GET",  "/_sim/placement-checkouts/:id",        "sim.placement_checkouts.get", A::kControl, &api::SimGetPlacementCheckout},
    {"POST", "/_sim/placement-checkouts/:id/complete", "sim.placement_checkouts.complete", A::kControl, &api::SimCompletePlacementCheckout},
    // ---- /_sim events, webhook deliveries, sinks (Part 6) --------------------------------------
    {"GET",   "/_sim/events",                        "sim.events.list",        A::kControl,   &api::SimListEvents},
    {"POST",  "/_sim/events",                        "sim.events.trigger",     A::kControl,   &api::SimTriggerEvent},
    {"GET",   "/_sim/deliveries",                    "sim.deliveries.list",    A::kControl,   &api::SimListDeliveries},
    {"GET",   "/_sim/notifications",                 "sim.notifications.list", A::kControl,   &api::SimListNotifications},
    {"POST",  "/_sim/sinks",                         "sim.sinks.create",       A::kControl,   &api::SimCreateSink},
    {"GET",   "/_sim/sinks",                         "sim.sinks.list",         A::kControl,   &api::SimListSinks},
    {"GET",   "/_sim/sinks/:id",                     "sim.sinks.get",          A::kControl,   &api::SimGetSink},
    {"PATCH", "/_sim/sinks/:id",                     "sim.sinks.update",       A::kControl,   &api::SimUpdateSink},
    {"POST",  "/_sim/sinks/:id/receive",             "sim.sinks.receive",      A::kControl,   &api::SimSinkReceive},
    {"GET",  "/_sim/exports",                        "sim.exports.list",       A::kControl,   &api::SimListExports},
    {"GET",  "/_sim/exports/:id",                    "sim.exports.get",        A::kControl,   &api::SimGetExport},
    {"POST", "/_sim/tenants",                        "sim.tenants.create",     A::kControl,   &api::SimCreateTenant},
    // ---- /_sim scenarios (issue 5): YAML in, the report as JSON out ------------------------------
    {"POST", "/_sim/scenarios/run",                  "sim.scenarios.run",      A::kControl,   &api::SimRunScenario, B::kYaml},
    {"POST",   "/_sim/faults",                       "sim.faults.create",      A::kControl,   &api::SimCreateFault},
    {"GET",    "/_sim/faults",                       "sim.faults.list",        A::kControl,   &api::SimListFaults},
    {"DELETE", "/_sim/faults",                       "sim.faults.clear",       A::kControl,   &api::SimClearFaults},
    {"DELETE", "/_sim/faults/:id",                   "sim.faults.delete",      A::kControl,   &api::SimDeleteFault},
  };
  // clang-format on
  return kRoutes;
}

}  // namespace emsim::api

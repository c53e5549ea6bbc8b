#include "app/app.hpp"
#include "events/dispatcher.hpp"
#include "model/domain_purchase.hpp"
#include "model/domains.hpp"
#include "model/exports.hpp"
#include "model/placement_tests.hpp"
#include "model/webhooks.hpp"

namespace emsim::app {

void Wire(Services& svc) {
  // ---- Part 4.4 domains: purchase lifecycle and the asynchronous settings ----------------------
  svc.scheduler.Register(model::kConnectJob, [&svc](const model::Job& j) {
    svc.store.Write([&](model::State& s) { model::RunConnectJob(s, j.args.Parse(), svc.clock.Now()); });
  });
  svc.scheduler.Register(model::kActivateJob, [&svc](const model::Job& j) {
    svc.store.Write([&](model::State& s) { model::RunActivateJob(s, j.args.Parse(), svc.clock.Now()); });
  });
  for (auto setting : {model::DomainSetting::kDmarc, model::DomainSetting::kForwarding, model::DomainSetting::kCatchAll}) {
    svc.scheduler.Register(model::JobKind(setting), [&svc, setting](const model::Job& j) {
      svc.store.Write([&](model::State& s) { model::ApplyDomainSetting(s, setting, j.args.Parse(), svc.clock.Now()); });
    });
  }
  // ---- Part 4.5 exports: an accepted export runs `exportSeconds` later (fixture timings).
  svc.scheduler.Register("exports.run", [&svc](const model::Job& j) {
    svc.store.Write([&](model::State& s) { model::RunExport(s, j.args.Parse().at("exportId").get<std::string>(), svc.clock.Now()); });
  });
  // Part 4.7 test orders: PENDING -> RUNNING -> COMPLETED (model/placement_tests.hpp).
  svc.scheduler.Register(model::kPlacementAdvanceJob, [&svc](const model::Job& j) {
    svc.store.Write([&](model::State& s) { model::AdvancePlacementTests(s, j.args.Parse(), svc.clock.Now()); });
  });

  // ---- Part 6 webhook delivery ---------------------------------------------------------------
  // parallel: attempts that fall due together (one event to many
  // endpoints, many retries at once) are sent at the same time, each on its own thread.
  svc.scheduler.Register(
      model::kDeliverJob, [&svc](const model::Job& job) { svc.webhooks->Run(job); }, /*parallel=*/true);
  svc.resetHooks.push_back([&svc] { svc.webhooks->Reset(); });
}

}  // namespace emsim::app

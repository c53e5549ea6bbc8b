#include "cli/app.hpp"
#include "events/dispatcher.hpp"
#include "model/domain_purchase.hpp"
#include "model/domains.hpp"
#include "model/exports.hpp"
#include "model/mailboxes.hpp"
#include "model/placement_tests.hpp"
#include "model/wallet.hpp"
#include "model/webhooks.hpp"

namespace emsim::cli {

void Wire(Services& svc) {
  auto& sched = svc.scheduler;
  // Every runner works at `at`, the job's due time (runtime/scheduler.hpp): what it changes and the
  // events it emits carry that time, however late the job actually ran.
  // ---- Part 4.4 domains: purchase lifecycle and the asynchronous settings ----------------------
  sched.Register(model::kConnectJob, [](model::State& s, const model::Job& j, model::Millis at) {
    model::RunConnectJob(s, j.args.Parse(), at);
  });
  sched.Register(model::kActivateJob, [](model::State& s, const model::Job& j, model::Millis at) {
    model::RunActivateJob(s, j.args.Parse(), at);
  });
  for (auto setting : {model::DomainSetting::kDmarc, model::DomainSetting::kForwarding, model::DomainSetting::kCatchAll}) {
    sched.Register(model::JobKind(setting), [setting](model::State& s, const model::Job& j, model::Millis at) {
      model::ApplyDomainSetting(s, setting, j.args.Parse(), at);
    });
  }
  // ---- Part 4.5 exports: an accepted export runs `exportSeconds` later (fixture timings).
  sched.Register("exports.run", [](model::State& s, const model::Job& j, model::Millis at) {
    model::RunExport(s, j.args.Parse().at("exportId").get<std::string>(), at);
  });
  // Mailboxes assigned through POST /v1/mailbox/assign-new (from the public reference) become
  // ACTIVE `mailboxActivationSeconds` later (model/mailboxes.hpp).
  sched.Register(model::kMailboxActivateJob, [](model::State& s, const model::Job& j, model::Millis at) {
    model::ActivateAssignedMailboxes(s, j.args.Parse(), at);
  });
  // Wallet auto recharge (from the public reference): a debit that left the wallet below its
  // threshold schedules the recharge, due at once (model/wallet.hpp).
  sched.Register(model::kAutoRechargeJob, [](model::State& s, const model::Job& j, model::Millis at) {
    model::RunAutoRecharge(s, j.args.Parse().at("accountId").get<std::string>(), at);
  });
  // Part 4.7 test orders: PENDING -> RUNNING -> COMPLETED (model/placement_tests.hpp).
  sched.Register(model::kPlacementAdvanceJob, [](model::State& s, const model::Job& j, model::Millis at) {
    model::AdvancePlacementTests(s, j.args.Parse(), at);
  });

  // ---- Part 6 webhook delivery: a task, on the scheduler's workers, so attempts due together
  // (one event to many endpoints, many retries at once) are sent at the same time.
  sched.RegisterTask(model::kDeliverJob, [&svc](const model::Job& job, model::Millis at, std::uint64_t generation) {
    svc.webhooks->Attempt(job, at, generation);
  });
  svc.resetHooks.push_back([&svc] { svc.scheduler.ForgetQueued(); });
}

}  // namespace emsim::cli

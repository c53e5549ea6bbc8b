#include "model/payloads.hpp"

#include "model/domains.hpp"

namespace emsim::model {

json DomainDetails(const State& s, const Domain& d) {
  // Part 2: an allow-listed subset; internal relations are omitted.
  return {{"id", d.id},
          {"userId", [&] {
             const auto* a = s.accounts.Find(d.accountId);
             return a ? a->user.id : std::string();
           }()},
          {"workspaceId", d.workspaceId},
          {"domain", d.domain},
          {"status", d.status},
          {"purchaseType", d.purchaseType},
          {"serviceProvider", d.serviceProvider},
          {"registeredOn", FormatIso(d.registeredOn)},
          {"expireOn", FormatIso(d.expireOn)},
          {"isWarmedUp", d.isWarmedUp},
          {"healthScore", d.healthScore},
          {"healthErrorMessage", d.healthErrorMessage},
          {"healthLabel", d.healthLabel},
          {"assignedMailboxesCount", AssignedMailboxes(s, d.id)},
          {"createdAt", FormatIso(d.createdAt)},
          {"updatedAt", FormatIso(d.updatedAt)}};
}

}  // namespace emsim::model

#pragma once
// Part 4.4 domains.
#include <string>
#include <vector>

#include "model/auth.hpp"
#include "model/paging.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct DomainListView {
  Page page;
  std::vector<const Domain*> domains;
};

// Domains of the caller's workspace whose name contains `contains` (case-insensitive), in
// creation order, one page of kPageSize.
DomainListView ListDomains(const State& s, const Caller& caller, const std::string& contains, std::int64_t page);

// Mailboxes assigned to a domain (Part 2 assignedMailboxesCount).
std::int64_t AssignedMailboxes(const State& s, const std::string& domain_id);

}  // namespace emsim::model

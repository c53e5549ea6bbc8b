#pragma once
// Part 2 records that are answered both as text (the list endpoints, core::JsonOut) and as a
// document (event payloads, answers that embed one record): each is written ONCE, by a template
// over its writer, with its keys in nlohmann's (sorted, byte-wise) order so that both writers
// give the same bytes. Numeric-text fields (domainCount, mailboxCount, assignedMailboxesCount)
// are strings in Part 2, and so they are here.
#include <cstdint>

#include "core/json.hpp"
#include "core/json_build.hpp"
#include "core/json_out.hpp"
#include "model/state.hpp"

namespace emsim::model {

// Instantiated for core::JsonOut and core::JsonBuild (records.cpp).
template <class W>
void WriteWorkspaceRecord(W& w, const Workspace& ws, std::int64_t domain_count, std::int64_t mailbox_count);
template <class W>
void WriteDomainListRecord(W& w, const State& s, const Domain& d);
template <class W>
void WriteMailboxRecord(W& w, const State& s, const Mailbox& m);

// The same records as documents.
json WorkspaceRecord(const Workspace& ws, std::int64_t domain_count, std::int64_t mailbox_count);
json DomainListRecord(const State& s, const Domain& d);
json MailboxRecord(const State& s, const Mailbox& m);

}  // namespace emsim::model

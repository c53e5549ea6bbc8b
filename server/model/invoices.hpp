#pragma once
// Invoices emsim issues for what it charges (placement tests, DNS shield upgrades), so every
// `invoiceUrl` it hands out leads to a real record: GET /_sim/invoices/<id>. An OPEN invoice is
// paid with its checkout (model/checkouts.hpp).
#include <string>

#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct InvoiceInput {
  std::string accountId, description;
  Cents amountCents = 0;
  PaidWith paidWith = PaidWith::kUnpaid;  // kUnpaid leaves the invoice OPEN; else it is PAID now
};

// Takes `in` by value: callers hand over their strings, which move into the record.
Invoice& IssueInvoice(State& s, InvoiceInput in, Millis now);

Result<const Invoice*> FindInvoice(const State& s, const std::string& id);

}  // namespace emsim::model

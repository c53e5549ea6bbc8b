#pragma once
// Invoices emsim issues for what it charges (placement tests, DNS shield upgrades), so every
// `invoiceUrl` it hands out leads to a real record: GET /_sim/invoices/<id>.
#include <string>

#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct InvoiceInput {
  std::string accountId, description;
  Cents amountCents = 0;
  std::string paidWith;  // "" leaves the invoice OPEN; else it is PAID now with this method
};

// Takes `in` by value: callers hand over their strings, which move into the record.
Invoice& IssueInvoice(State& s, InvoiceInput in, Millis now);

// Marks an OPEN invoice PAID (checkout completed).
void PayInvoice(Invoice& invoice, const std::string& paid_with, Millis now);

Result<const Invoice*> FindInvoice(const State& s, const std::string& id);

}  // namespace emsim::model

#include "api/control/checkout_page.hpp"

#include <cctype>
#include <cstdlib>

#include "core/text.hpp"

namespace emsim::api {

namespace {

std::string_view TrimSpacesOfAccept(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The q an Accept header gives `type`/`subtype`: that of the most specific range matching it
// (exact, then type/*, then */*); 0 when none matches, and for a missing header 1 to everything.
double AcceptQuality(std::string_view accept, std::string_view type, std::string_view subtype) {
  if (TrimSpacesOfAccept(accept).empty()) return 1.0;
  int best_specificity = -1;
  double best_q = 0.0;
  size_t start = 0;
  while (start <= accept.size()) {
    size_t end = accept.find(',', start);
    if (end == std::string_view::npos) end = accept.size();
    std::string_view range = accept.substr(start, end - start);
    start = end + 1;
    const size_t semi = range.find(';');
    std::string_view media = TrimSpacesOfAccept(range.substr(0, semi));
    double q = 1.0;
    if (semi != std::string_view::npos) {
      std::string_view params = range.substr(semi + 1);
      for (size_t p = 0; p <= params.size();) {
        size_t pe = params.find(';', p);
        if (pe == std::string_view::npos) pe = params.size();
        std::string_view param = TrimSpacesOfAccept(params.substr(p, pe - p));
        p = pe + 1;
        if (param.size() > 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=')
          q = std::strtod(std::string(param.substr(2)).c_str(), nullptr);
      }
    }
    const size_t slash = media.find('/');
    if (slash == std::string_view::npos) continue;
    const std::string t = model::ToLower(media.substr(0, slash)), st = model::ToLower(media.substr(slash + 1));
    int specificity = -1;
    if (t == type && st == subtype) specificity = 2;
    else if (t == type && st == "*") specificity = 1;
    else if (t == "*" && st == "*") specificity = 0;
    if (specificity > best_specificity) {
      best_specificity = specificity;
      best_q = q;
    }
  }
  return best_q;
}

constexpr const char* kCheckoutPageStyle =
    "body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0}"
    "main{max-width:30rem;margin:3rem auto;background:#fff;border-radius:10px;padding:1.6rem 2rem;"
    "box-shadow:0 2px 12px rgba(0,0,0,.08)}"
    "h1{font-size:1.3rem;margin:.2rem 0 1rem}.brand{color:#6b7280;font-size:.8rem;letter-spacing:.05em}"
    "table{width:100%;border-collapse:collapse;margin:.5rem 0 1rem}th{text-align:left;color:#6b7280;"
    "font-weight:normal;padding:.3rem .8rem .3rem 0;vertical-align:top}td{padding:.3rem 0;overflow-wrap:anywhere}"
    ".amount{font-size:1.8rem;font-weight:600;margin:.5rem 0}"
    ".notice{border-radius:6px;padding:.7rem .9rem;margin:1rem 0}.ok{background:#e7f6ec;color:#135c2b}"
    ".info{background:#eef2ff;color:#2b3a8c}.err{background:#fdecec;color:#8a1c1c}"
    ".actions{display:flex;gap:.8rem;margin-top:1rem}.actions form{flex:1}"
    "button{width:100%;font-size:1rem;padding:.7rem;border-radius:6px;border:1px solid #c7cbd4;"
    "background:#fff;cursor:pointer}button.pay{background:#3b5bdb;border-color:#3b5bdb;color:#fff}"
    ".status{font-family:monospace}";

std::string PageHtml(const std::string& title, const std::string& inner) {
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><link rel=\"icon\" href=\"data:,\">"
         "<title>" + HtmlEscape(title) + " - emsim checkout</title><style>" + kCheckoutPageStyle +
         "</style></head><body><main><div class=\"brand\">EMSIM CHECKOUT (SIMULATED PAYMENT)</div>" + inner +
         "</main></body></html>\n";
}

http::Response HtmlAnswer(std::string html, int status) {
  http::Response r{.status = status, .raw = std::move(html), .contentType = "text/html; charset=utf-8"};
  // The page shows the checkout as it is now; the same link answers JSON to JSON clients.
  r.headers.emplace_back("cache-control", "no-store");
  r.headers.emplace_back("vary", "Accept");
  return r;
}

}  // namespace

bool PrefersHtml(std::string_view accept) {
  return AcceptQuality(accept, "text", "html") > AcceptQuality(accept, "application", "json");
}

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

http::Response CheckoutPage(const CheckoutView& v, CheckoutNotice notice, const std::string& error, int status) {
  std::string in = "<h1>" + HtmlEscape(v.title) + "</h1>";
  in += "<div class=\"amount\" data-field=\"amount\">" + HtmlEscape(v.amount) + "</div><table>";
  for (const auto& [label, value] : v.rows)
    in += "<tr><th>" + HtmlEscape(label) + "</th><td>" + HtmlEscape(value) + "</td></tr>";
  in += "</table>";
  switch (notice) {
    case CheckoutNotice::kDeclined:
      in += "<p class=\"notice info\" id=\"notice\">You declined this payment. Nothing was charged and nothing "
            "changed; the checkout stays open, so this link can still be paid.</p>";
      break;
    case CheckoutNotice::kPaid:
      if (!v.open)
        in += "<p class=\"notice ok\" id=\"notice\">Payment complete. " + HtmlEscape(v.deliveredNote) + "</p>";
      break;
    case CheckoutNotice::kError:
      in += "<p class=\"notice err\" id=\"notice\">The payment did not go through: " + HtmlEscape(error) + "</p>";
      break;
    case CheckoutNotice::kNone:
      break;
  }
  if (v.open) {
    // Pay posts an empty body (no named fields): the completion route takes no input.
    in += "<div class=\"actions\"><form method=\"post\" action=\"" + HtmlEscape(v.pagePath + "/complete") +
          "\"><button class=\"pay\" type=\"submit\" id=\"pay\">Pay " + HtmlEscape(v.amount) +
          "</button></form><form method=\"get\" action=\"" + HtmlEscape(v.pagePath) +
          "\"><input type=\"hidden\" name=\"declined\" value=\"1\"><button type=\"submit\" id=\"decline\">Decline"
          "</button></form></div>";
  } else if (notice != CheckoutNotice::kPaid) {
    in += "<p class=\"notice info\" id=\"notice\">This payment link was already used: " + HtmlEscape(v.paidNote) +
          ". It cannot be paid again.</p>";
  } else {
    in += "<p class=\"status\">" + HtmlEscape(v.paidNote) + "</p>";
  }
  return HtmlAnswer(PageHtml(v.title, in), status);
}

http::Response UnknownCheckoutPage(const std::string& message) {
  return HtmlAnswer(PageHtml("Unknown payment link",
                             "<h1>Unknown payment link</h1><p class=\"notice err\" id=\"notice\">" + HtmlEscape(message) +
                                 ". The link was never issued, or a reset or state load removed its checkout.</p>"),
                    404);
}

http::Response SeeOther(const std::string& location) {
  http::Response r{.status = 303, .raw = std::string(), .contentType = "text/plain"};
  r.headers.emplace_back("location", location);
  r.headers.emplace_back("cache-control", "no-store");
  return r;
}

}  // namespace emsim::api

#include "sim/yaml_doc.hpp"

#include <yaml.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace emsim::sim::yaml {

namespace {

constexpr int kMaxDepth = 500;  // yaml-cpp's own limit (DepthGuard<500>)
// An alias shares its anchor's node here, but a reader that walks the tree visits it once per
// alias: a 536-byte "billion laughs" fixture is a tree of billions of nodes to the loader. The
// aliases of one document may stand for at most this many nodes in total.
constexpr std::uint64_t kMaxAliasExpansion = 100'000;

// yaml-cpp's IsNullString: what an unquoted, untagged scalar must be to be null.
bool IsNullText(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

// yaml-cpp's IsFlexibleCase: lowercase, UPPERCASE or Capitalized.
bool IsFlexibleCase(std::string_view s) {
  if (s.empty()) return true;
  bool all_lower = true;
  for (char c : s) all_lower = all_lower && IsLower(c);
  if (all_lower) return true;
  if (!IsUpper(s[0])) return false;
  bool rest_lower = true, rest_upper = true;
  for (char c : s.substr(1)) {
    rest_lower = rest_lower && IsLower(c);
    rest_upper = rest_upper && IsUpper(c);
  }
  return rest_lower || rest_upper;
}

}  // namespace

// ---- building ----------------------------------------------------------------------------------

struct Builder {
  Document doc;

  std::vector<std::uint64_t> weight;  // per item: the nodes it stands for, aliases expanded (libyaml path)
  std::uint64_t expanded = 0;         // nodes the aliases stand for so far
  size_t max_items = 0;               // yaml-cpp path: its aliases are copies, so items are capped

  std::uint32_t Add(Kind kind, int line, std::string text = {}) {
    if (max_items && doc.items_.size() >= max_items)
      throw ParseError(line, "the document expands to more than " + std::to_string(max_items) +
                                 " nodes (aliases repeat more than " + std::to_string(kMaxAliasExpansion) + ")");
    doc.items_.push_back({kind, line, std::move(text), {}});
    weight.push_back(1);
    return static_cast<std::uint32_t>(doc.items_.size() - 1);
  }

  // libyaml's events -> items. Returns false when libyaml rejects the text (or when it uses an
  // anchor before defining it, which libyaml leaves to the caller to notice); throws ParseError
  // when its aliases expand past kMaxAliasExpansion.
  bool FromLibyaml(const std::string& text) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return false;
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    std::vector<std::pair<std::uint32_t, std::string>> open;  // containers being filled, with their anchors
    std::map<std::string, std::uint32_t, std::less<>> anchors;
    bool ok = true, done = false, have_root = false;
    const auto anchor_of = [](const yaml_char_t* a) { return a ? std::string(reinterpret_cast<const char*>(a)) : std::string(); };
    const auto place = [&](std::uint32_t index) {
      if (open.empty()) {
        doc.root_ = index;
        have_root = true;
      } else {
        doc.items_[open.back().first].children.push_back(index);
      }
    };
    while (ok && !done) {
      yaml_event_t e;
      if (!yaml_parser_parse(&parser, &e)) {
        ok = false;
        break;
      }
      const int line = static_cast<int>(e.start_mark.line);
      switch (e.type) {
        case YAML_SCALAR_EVENT: {
          std::string value(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
          const bool null = e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && e.data.scalar.tag == nullptr && IsNullText(value);
          const std::uint32_t index = Add(null ? Kind::kNull : Kind::kScalar, line, null ? std::string() : std::move(value));
          if (e.data.scalar.anchor) anchors[anchor_of(e.data.scalar.anchor)] = index;
          place(index);
          break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
          const bool seq = e.type == YAML_SEQUENCE_START_EVENT;
          const std::uint32_t index = Add(seq ? Kind::kSequence : Kind::kMap, line);
          place(index);
          open.emplace_back(index, anchor_of(seq ? e.data.sequence_start.anchor : e.data.mapping_start.anchor));
          ok = open.size() <= kMaxDepth;
          break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
          // An anchor names the node once it is complete, so an alias inside its own node (a cycle) is refused.
          const std::uint32_t index = open.back().first;
          if (!open.back().second.empty()) anchors[open.back().second] = index;
          std::uint64_t w = 1;
          for (const std::uint32_t child : doc.items_[index].children) w += weight[child];
          weight[index] = std::min<std::uint64_t>(w, std::uint64_t{1} << 62);  // saturates: only compared
          open.pop_back();
          break;
        }
        case YAML_ALIAS_EVENT: {
          auto it = anchors.find(anchor_of(e.data.alias.anchor));
          if (it == anchors.end()) {
            ok = false;
          } else {
            expanded += weight[it->second];
            if (expanded > kMaxAliasExpansion) {
              yaml_event_delete(&e);
              yaml_parser_delete(&parser);
              throw ParseError(line, "aliases expand to more than " + std::to_string(kMaxAliasExpansion) +
                                         " nodes (a YAML alias bomb?)");
            }
            place(it->second);  // the same node, as yaml-cpp shares it
          }
          break;
        }
        case YAML_DOCUMENT_END_EVENT:
        case YAML_STREAM_END_EVENT:
          done = true;  // yaml-cpp's Load reads the first document only
          break;
        default:
          break;
      }
      yaml_event_delete(&e);
    }
    yaml_parser_delete(&parser);
    if (ok && !have_root) doc.root_ = Add(Kind::kNull, 0);  // an empty file
    return ok;
  }

  std::uint32_t FromYamlCpp(const YAML::Node& n, int depth) {
    if (depth > kMaxDepth) throw ParseError(n.Mark().line, "the document nests too deeply");
    const int line = n.Mark().line;
    switch (n.Type()) {
      case YAML::NodeType::Scalar:
        return Add(Kind::kScalar, line, n.Scalar());
      case YAML::NodeType::Sequence: {
        const std::uint32_t index = Add(Kind::kSequence, line);
        for (const auto& item : n) {
          const std::uint32_t child = FromYamlCpp(item, depth + 1);
          doc.items_[index].children.push_back(child);
        }
        return index;
      }
      case YAML::NodeType::Map: {
        const std::uint32_t index = Add(Kind::kMap, line);
        for (const auto& kv : n) {
          const std::uint32_t key = FromYamlCpp(kv.first, depth + 1);
          const std::uint32_t value = FromYamlCpp(kv.second, depth + 1);
          doc.items_[index].children.push_back(key);
          doc.items_[index].children.push_back(value);
        }
        return index;
      }
      default:
        return Add(Kind::kNull, line);
    }
  }
};

Document Document::Parse(const std::string& text) {
  {
    Builder fast;
    fast.doc.items_.reserve(text.size() / 12);  // ~one node per 12 bytes of the default fixture
    if (fast.FromLibyaml(text)) {
      fast.doc.libyaml_ = true;
      return std::move(fast.doc);
    }
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ParseError(e.mark.line, e.msg);
  }
  Builder slow;
  slow.max_items = text.size() + kMaxAliasExpansion;  // every real node takes a byte of text at least
  slow.doc.root_ = slow.FromYamlCpp(root, 0);
  return std::move(slow.doc);
}

// ---- reading -----------------------------------------------------------------------------------

bool Node::IsNull() const { return doc_ && item().kind == Kind::kNull; }
bool Node::IsScalar() const { return doc_ && item().kind == Kind::kScalar; }
bool Node::IsSequence() const { return doc_ && item().kind == Kind::kSequence; }
bool Node::IsMap() const { return doc_ && item().kind == Kind::kMap; }
int Node::Line() const { return doc_ ? item().line : -1; }

const std::string& Node::Scalar() const {
  static const std::string kEmpty;
  return IsScalar() ? item().text : kEmpty;
}

std::optional<std::int64_t> Node::AsInt() const {
  if (!IsScalar()) return std::nullopt;
  const std::string& s = item().text;
  // Plain decimal digits (nearly every integer of a fixture): read directly.
  const size_t digits_from = !s.empty() && s[0] == '-' ? 1 : 0;
  const size_t digits = s.size() - digits_from;
  bool plain = digits > 0 && digits <= 18 && (s[digits_from] != '0' || digits == 1);
  for (size_t i = digits_from; plain && i < s.size(); ++i) plain = s[i] >= '0' && s[i] <= '9';
  if (plain) {
    std::int64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
  }
  // Anything else exactly as yaml-cpp reads it: the base from the prefix (0x.., 0..), a leading
  // '+', trailing spaces, and failure on overflow or trailing text.
  std::stringstream stream(s);
  stream.unsetf(std::ios::dec);
  long long v = 0;
  if ((stream >> std::noskipws >> v) && (stream >> std::ws).eof()) return static_cast<std::int64_t>(v);
  return std::nullopt;
}

std::optional<bool> Node::AsBool() const {
  if (!IsScalar()) return std::nullopt;
  const std::string& s = item().text;
  if (!IsFlexibleCase(s)) return std::nullopt;
  std::string lower = s;
  for (auto& c : lower) c = IsUpper(c) ? static_cast<char>(c - 'A' + 'a') : c;
  if (lower == "y" || lower == "yes" || lower == "true" || lower == "on") return true;
  if (lower == "n" || lower == "no" || lower == "false" || lower == "off") return false;
  return std::nullopt;
}

Node Node::operator[](std::string_view key) const {
  if (!IsMap()) return {};
  const auto& children = item().children;
  for (size_t i = 0; i + 1 < children.size(); i += 2) {
    const Item& k = doc_->items_[children[i]];
    if (k.kind == Kind::kScalar && k.text == key) return Node(doc_, children[i + 1]);
  }
  return {};
}

Node Node::operator[](size_t index) const {
  if (!IsSequence() || index >= item().children.size()) return {};
  return Node(doc_, item().children[index]);
}

size_t Node::size() const {
  if (IsSequence()) return item().children.size();
  if (IsMap()) return item().children.size() / 2;
  return 0;
}

Node Node::Key(size_t entry) const {
  if (!IsMap() || 2 * entry >= item().children.size()) return {};
  return Node(doc_, item().children[2 * entry]);
}

Node Node::Value(size_t entry) const {
  if (!IsMap() || 2 * entry + 1 >= item().children.size()) return {};
  return Node(doc_, item().children[2 * entry + 1]);
}

}  // namespace emsim::sim::yaml

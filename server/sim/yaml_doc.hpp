#pragma once
// A read-only YAML document for the fixture loader (sim/fixtures.cpp).
//
// Why not yaml-cpp's YAML::Node: yaml-cpp scans ~4-8 MB/s, so the default fixture (200 KB) took
// ~25 ms to parse, half of emsim's start-up (issue 7: first 200 in < 50 ms). libyaml reads the
// same file in ~3 ms. The tree keeps yaml-cpp's reading of scalars (which plain scalars are null,
// booleans y/yes/true/on..., integers as `stream >> int64` reads them) so every fixture means what
// it meant before. Text libyaml does not accept is handed to yaml-cpp: its error message (file
// line and text) is the one emsim always gave, and the rare input only yaml-cpp accepts (it reads
// YAML 1.2, libyaml 1.1) still loads.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace emsim::sim::yaml {

struct ParseError : std::runtime_error {
  ParseError(int line_, const std::string& what) : std::runtime_error(what), line(line_) {}
  int line;  // 0-based
};

class Document;

// One node as stored in a Document.
enum class Kind : std::uint8_t { kNull, kScalar, kSequence, kMap };

struct Item {
  Kind kind = Kind::kNull;
  int line = 0;
  std::string text;                     // scalars
  std::vector<std::uint32_t> children;  // sequence items; map keys and values, alternating
};

// A handle on one node of a Document (which must outlive it). Default-constructed, or looked up
// where there is nothing, it is undefined: IsDefined() is false and every lookup is undefined too.
class Node {
 public:
  Node() = default;

  bool IsDefined() const { return doc_ != nullptr; }
  bool IsNull() const;      // `~`, `null`, `Null`, `NULL` or nothing at all, unquoted and untagged
  bool IsScalar() const;    // any other scalar, quoted or not
  bool IsSequence() const;
  bool IsMap() const;
  int Line() const;         // 0-based line where the node starts; -1 when undefined

  const std::string& Scalar() const;  // a scalar's text; "" for anything else
  // yaml-cpp's as<std::int64_t>() and as<bool>(): nullopt where those throw a bad conversion.
  std::optional<std::int64_t> AsInt() const;
  std::optional<bool> AsBool() const;

  Node operator[](std::string_view key) const;  // a map's value for a scalar key (the first one)
  Node operator[](size_t index) const;          // a sequence's item
  size_t size() const;                          // items of a sequence, entries of a map, else 0
  Node Key(size_t entry) const;                 // a map's entries, in file order
  Node Value(size_t entry) const;

 private:
  friend class Document;
  Node(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}
  const Item& item() const;
  const Document* doc_ = nullptr;
  std::uint32_t index_ = 0;
};

class Document {
 public:
  // The first document of `text`. Throws ParseError when it is not YAML.
  static Document Parse(const std::string& text);

  Document(Document&&) = default;
  Document& operator=(Document&&) = default;
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  Node Root() const { return items_.empty() ? Node() : Node(this, root_); }
  // True when libyaml read it; false when yaml-cpp had to (tests keep the fixtures on the fast path).
  bool ParsedByLibyaml() const { return libyaml_; }

 private:
  friend class Node;
  friend struct Builder;
  Document() = default;
  std::vector<Item> items_;
  std::uint32_t root_ = 0;
  bool libyaml_ = false;
};

inline const Item& Node::item() const { return doc_->items_[index_]; }

}  // namespace emsim::sim::yaml

#pragma once
// The route table: each operation of the catalogue (schemas/operations.json: method, path,
// access, body format, schemas) paired with its handler. Adding an endpoint is one catalogue
// line, one handler in routes.cpp, and its schema files.
#include <vector>

#include "app/route.hpp"
#include "schema/catalogue.hpp"

namespace emsim::api {

// One route per catalogue entry, in the catalogue's order. The routes point into `operations`
// (their strings), which must outlive them. Throws std::runtime_error listing every entry that has
// no handler and every handler that has no entry, so emsim refuses to start with either.
std::vector<app::Route> Routes(const schema::Catalogue& operations);

}  // namespace emsim::api

// InputError: a value a person typed or a file supplied is wrong; names the offending field.
#pragma once

#include <stdexcept>
#include <string>

namespace nertz::scoring {

// Thrown for every mistake a user can make (bad counts, unknown preset, two callers ...).
// `field()` is a JSON-style path such as "players[1].nertz_left"; what() starts with it.
class InputError : public std::invalid_argument {
  public:
    InputError(std::string field, const std::string& message)
        : std::invalid_argument(field.empty() ? message : field + ": " + message),
          field_(std::move(field)) {}
    const std::string& field() const noexcept { return field_; }

  private:
    std::string field_;
};

}  // namespace nertz::scoring

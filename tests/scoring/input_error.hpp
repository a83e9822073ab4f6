// Test helper: runs an action and returns the field named by the scoring::InputError it throws
// ("" when it throws none), so a test can say which field a bad input was blamed on.
#pragma once

#include <string>

#include "nertz/scoring/error.hpp"

namespace nertz::testing {

template <typename Action>
std::string failingField(Action&& action) {
    try {
        action();
    } catch (const scoring::InputError& e) {
        return e.field();
    }
    return "";
}

}  // namespace nertz::testing

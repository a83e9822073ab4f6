// The median of a list, shared by the vision stages (back finder, pip colour, detector); internal
// to nertz::vision.
#pragma once

#include <algorithm>
#include <vector>

namespace nertz::vision::detail {

// The median of `v` (upper median), 0 when it has fewer than `minCount` values.
template <typename T>
T medianOf(std::vector<T> v, std::size_t minCount = 1) {
    if (v.empty() || v.size() < minCount) return T{};
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
}

}  // namespace nertz::vision::detail

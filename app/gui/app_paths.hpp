// Where the app keeps its files: the default league database (shared with nertzref-cli) and the
// cache folder for generated material (the demo clip).
#pragma once
#include <QString>

namespace nertz::gui {

// $XDG_DATA_HOME/nertzref/club.sqlite, else ~/.local/share/nertzref/club.sqlite (as the CLI).
QString defaultDbPath();
// $XDG_CACHE_HOME/nertzref, else ~/.cache/nertzref; created when missing.
QString cacheDir();
// The login name ($USER), used as the default "entered by".
QString defaultUser();

}  // namespace nertz::gui

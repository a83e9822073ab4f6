// Where the app keeps its files: the default league database (shared with nertzref-cli) and the
// cache folder for generated material (the demo clip).
#pragma once
#include <QString>

namespace nertz::gui {

// The league file when none is named: db::defaultDatabasePath(), the same one nertzref-cli opens.
QString defaultDbPath();
// $XDG_CACHE_HOME/nertzref, else ~/.cache/nertzref; created when missing.
QString cacheDir();
// The login name ($USER), used as the default "entered by".
QString defaultUser();

}  // namespace nertz::gui

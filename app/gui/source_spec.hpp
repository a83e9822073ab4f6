// Source specs as typed on the command line and kept in QSettings: "demo", "video:PATH",
// "folder:PATH", "camera:ID" (a Qt camera id or index); and making a FrameSource from one.
#pragma once
#include <QSize>
#include <QString>
#include <memory>

#include "frame_source.hpp"

namespace nertz::gui {

struct SourceSpec {
    enum class Kind { Demo, Video, Folder, Camera };
    Kind kind = Kind::Demo;
    QString arg;       // path or camera id
    QSize resolution;  // cameras only; empty: default
    QString toString() const;
};

// nullopt and a message in `error` when the text is not a spec.
std::optional<SourceSpec> parseSourceSpec(const QString& text, QString* error);

// Builds the source (the demo clip is generated into the cache folder on first use).
// nullptr and a message in `error` when it cannot (no such camera, demo clip not writable).
std::unique_ptr<FrameSource> makeSource(const SourceSpec& spec, QString* error, QObject* parent = nullptr);

}  // namespace nertz::gui
